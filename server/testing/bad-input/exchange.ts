/** Sending a bad-input request and checking what must hold for any answer (server/bad-input.test.ts). */
import assert from 'node:assert/strict';
import http from 'node:http';
import { ERROR_CODES, SUB_CODES, statusOf, type AnyErrorCode } from '../../kernel/errors.ts';

import { REQUEST_TIMEOUT_MS, agent, disabledToken, gw, meetingIds, port, refillMeetings, snapshot, tokenSlots } from './gateway.ts';
import { type BodySpec, type PathPart, type RequestSpec } from './requests.ts';

// ── Materializing and sending ──────────────────────────────────────────────

function resolvePath(parts: PathPart[]): string {
  const text = parts.map((p) => (typeof p === 'string' ? p : meetingIds[p.meeting]!)).join('');
  return text.startsWith('/') ? text : `/${text}`;
}

export function nest(depth: number, open: string, close: string, inner: string): string {
  return open.repeat(depth) + inner + close.repeat(depth);
}

function materializeBody(spec: BodySpec): Buffer {
  switch (spec.kind) {
    case 'json':
      return Buffer.from(JSON.stringify(spec.value) ?? 'null', 'utf8');
    case 'text':
      return Buffer.from(spec.text, 'utf8');
    case 'bytes':
      return Buffer.from(spec.bytes);
    case 'latin1':
      return Buffer.from(spec.text, 'latin1');
    case 'deep': {
      const d = spec.depth;
      switch (spec.shape) {
        case 'array':
          return Buffer.from(nest(d, '[', ']', ''));
        case 'object':
          return Buffer.from(nest(d, '{"a":', '}', '1'));
        case 'title':
          return Buffer.from(`{"title":${nest(d, '[', ']', '"x"')}}`);
        case 'labels':
          return Buffer.from(`{"labels":{"S1":${nest(d, '{"a":', '}', 'null')}}}`);
        case 'config':
          return Buffer.from(`{"known_speakers":${nest(d, '[', ']', '{"name":"x"}')},"apps":${nest(d, '[', ']', '')}}`);
      }
      break;
    }
    case 'huge': {
      const filler = 'x'.repeat(Math.max(0, spec.bytes - 20));
      switch (spec.shape) {
        case 'title':
          return Buffer.from(`{"title":"${filler}"}`);
        case 'text':
          return Buffer.from(`{"text":"${filler}"}`);
        case 'prompt':
          return Buffer.from(`{"prompt":"${filler}"}`);
        case 'garbage':
          return Buffer.alloc(spec.bytes, 0x7b);
      }
    }
  }
  throw new Error('unreachable');
}

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  body: Buffer | null;
  chunked: boolean;
}

function materialize(spec: RequestSpec): Sent {
  const headers: Record<string, string | string[]> = { ...spec.extraHeaders };
  const auth = spec.auth;
  switch (auth.kind) {
    case 'none':
      break;
    case 'token':
      headers['authorization'] = `${auth.scheme}${tokenSlots[auth.slot % tokenSlots.length]!.token}${auth.trailing}`;
      break;
    case 'disabled':
      headers['authorization'] = `Bearer ${disabledToken}`;
      break;
    case 'unknown':
      headers['authorization'] = `Bearer ${auth.value}`;
      break;
    case 'raw':
      headers['authorization'] = auth.value;
      break;
    case 'twice':
      headers['authorization'] = [`Bearer ${tokenSlots[auth.slot % tokenSlots.length]!.token}`, 'Bearer nope'];
      break;
  }
  const body = spec.body === null ? null : materializeBody(spec.body);
  if (spec.contentType !== null && (body !== null || spec.method !== 'GET')) headers['content-type'] = spec.contentType;
  return { method: spec.method, path: resolvePath(spec.path) + spec.query, headers, body, chunked: spec.chunked && body !== null };
}

export interface Received {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** Sends one request over the keep-alive agent; rejects on a dropped connection or after the timeout. */
function send(req: Sent, timeoutMs = REQUEST_TIMEOUT_MS): Promise<Received> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const done = (err: Error | null, value?: Received): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err !== null) reject(err);
      else resolve(value!);
    };
    const headers: http.OutgoingHttpHeaders = { ...req.headers };
    if (req.body !== null && !req.chunked) headers['content-length'] = req.body.length;
    // Said explicitly: node's client never chunks a GET, DELETE or OPTIONS body on its own.
    if (req.body !== null && req.chunked) headers['transfer-encoding'] = 'chunked';
    const outgoing = http.request({ host: '127.0.0.1', port, method: req.method, path: req.path, headers, agent }, (res) => {
      if (/^text\/event-stream/i.test(res.headers['content-type'] ?? '')) {
        // A wait stream stays open until its event; its head is all this test looks at.
        res.destroy();
        done(null, { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.alloc(0) });
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done(null, { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', (err) => done(err));
    });
    const timer = setTimeout(() => {
      outgoing.destroy();
      done(new Error(`no response within ${timeoutMs} ms`));
    }, timeoutMs);
    // The server may answer (413, 401) before the body is fully written; a
    // write error after the response arrived is not a failure.
    outgoing.on('error', (err) => done(new Error(`connection failed before a response: ${err.message}`)));
    if (req.body === null) {
      outgoing.end();
    } else if (req.chunked) {
      const step = 64 * 1024;
      for (let i = 0; i < req.body.length; i += step) outgoing.write(req.body.subarray(i, i + step));
      outgoing.end();
    } else {
      outgoing.end(req.body);
    }
  });
}

// ── The checks ─────────────────────────────────────────────────────────────

const PROBE: Sent = { method: 'GET', path: '/health', headers: {}, body: null, chunked: false };
const PROBE_TIMEOUT_MS = 4_000;

const REGISTRY: ReadonlySet<string> = new Set([...Object.keys(ERROR_CODES), ...Object.keys(SUB_CODES)]);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Strings that would only appear in a message that leaks a file-system path or a source location. */
function leaks(message: string): string | null {
  if (message.includes('    at ')) return 'a stack trace';
  // Not the home folder or /tmp alone: a request path such as /v1/root is echoed in a 404 message.
  for (const secret of [process.cwd(), gw.dataDir, '/node_modules/', 'file://']) {
    if (secret.length > 1 && message.includes(secret)) return `the path ${secret}`;
  }
  if (/\.(ts|js|mjs|cjs):\d+/.test(message)) return 'a source location';
  return null;
}

function describeSent(req: Sent): string {
  const bodyInfo =
    req.body === null
      ? 'no body'
      : `${req.body.length} body bytes${req.chunked ? ' (chunked)' : ''}: ${JSON.stringify(req.body.subarray(0, 120).toString('latin1'))}`;
  const headers = JSON.stringify(req.headers, (_k, v: unknown) =>
    typeof v === 'string' && v.length > 100 ? `${v.slice(0, 100)}…(${v.length})` : v,
  );
  const path = req.path.length > 200 ? `${req.path.slice(0, 200)}…(${req.path.length})` : req.path;
  return `${req.method} ${path} headers=${headers} ${bodyInfo}`;
}

/** What the requests got, printed after each property so a run shows what it covered. */
const tally = new Map<string, number>();

export function printTally(label: string): void {
  const entries = [...tally.entries()].sort((a, b) => b[1] - a[1]);
  const total = entries.reduce((n, [, c]) => n + c, 0);
  console.log(`${label}: ${total} requests; ${entries.map(([k, c]) => `${k}×${c}`).join(' ')}`);
  tally.clear();
}

/** Sends one request and checks (a) to (e). Throws an AssertionError describing what broke. */
export async function exercise(spec: RequestSpec): Promise<Received> {
  gw.errors.length = 0;
  refillMeetings();
  const sent = materialize(spec);
  const before = snapshot();
  let res: Received;
  try {
    res = await send(sent);
  } catch (err) {
    assert.fail(`(b) no answer to ${describeSent(sent)}: ${(err as Error).message}`);
  }
  const where = `${describeSent(sent)} → ${res.status} ${JSON.stringify(res.body.subarray(0, 300).toString('utf8'))}`;

  // (b) the connection is still usable: the agent reuses the same keep-alive
  // socket unless the server said Connection: close.
  try {
    const probe = await send(PROBE, PROBE_TIMEOUT_MS);
    assert.equal(probe.status, 200);
  } catch (err) {
    assert.fail(`(b) the next request on the connection got no answer after ${where}: ${(err as Error).message}`);
  }
  checkInvariants(sent.method, res, before, where);
  return res;
}

/** (a), (c), (d) and (e) for one answered request. */
export function checkInvariants(method: string, res: Received, before: string, where: string): void {
  // (a)
  const logged = gw.errors.map((e) => (e instanceof Error ? (e.stack ?? e.message) : String(e)));
  assert.deepEqual(logged, [], `(a) unexpected failure logged for ${where}`);
  assert.notEqual(res.status, 500, `(a) 500 for ${where}`);
  assert.ok(res.status >= 200 && res.status < 600, `status out of range for ${where}`);

  const ok = res.status >= 200 && res.status < 300;
  const code = !ok && method !== 'HEAD' ? ` ${(tryJson(res.body) as { error?: { code?: string } } | null)?.error?.code ?? '?'}` : '';
  tally.set(`${res.status}${code}`, (tally.get(`${res.status}${code}`) ?? 0) + 1);
  if (!ok) {
    // (c)
    const contentType = res.headers['content-type'] ?? '';
    assert.match(contentType, /^application\/json(;|$)/, `(c) error without a JSON content type for ${where}`);
    if (method !== 'HEAD') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(res.body.toString('utf8'));
      } catch {
        assert.fail(`(c) error body is not JSON for ${where}`);
      }
      assert.ok(isEnvelope(parsed), `(c) error body is not exactly {error: {code, message}} for ${where}`);
      const { code: errorCode, message } = parsed.error;
      assert.ok(REGISTRY.has(errorCode), `(c) code ${errorCode} is not in the registry for ${where}`);
      assert.equal(res.status, statusOf(errorCode as AnyErrorCode), `(c) status is not the status of ${errorCode} for ${where}`);
      const leak = leaks(message);
      assert.equal(leak, null, `(c) the message leaks ${leak} for ${where}`);
    }
  }

  // (d), (e)
  if (!ok || SAFE_METHODS.has(method)) {
    const afterSnap = snapshot();
    if (afterSnap !== before) assert.fail(`(${ok ? 'e' : 'd'}) the store changed for ${where}\n${firstDifference(before, afterSnap)}`);
  }
}

export function tryJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
}

export function isEnvelope(value: unknown): value is { error: { code: string; message: string } } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  if (Object.keys(value).join() !== 'error') return false;
  const error = (value as { error: unknown }).error;
  if (typeof error !== 'object' || error === null || Array.isArray(error)) return false;
  const keys = Object.keys(error).sort().join();
  const e = error as { code: unknown; message: unknown };
  return keys === 'code,message' && typeof e.code === 'string' && typeof e.message === 'string';
}

function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `before: …${a.slice(Math.max(0, i - 80), i + 120)}\nafter:  …${b.slice(Math.max(0, i - 80), i + 120)}`;
}
