/**
 * A mutant: a proxy in front of a conforming target that breaks one rule of
 * the spec on purpose (drops a field, answers the wrong status, ignores a
 * parameter). The suite must fail the checks that guard that rule; a mutant
 * the suite lets through is a hole in the suite (mutation testing of the
 * conformance suite, without touching the target's code).
 */
import { request as httpRequest } from 'node:http';
import type { Transform } from 'node:stream';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { localServer } from '../harness/local-server.ts';

export interface ProxyRequest {
  method: string;
  /** Path with query, as sent by the client. */
  url: URL;
  headers: Record<string, string>;
  body: Buffer;
}

export interface ProxyResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface MutantTools {
  /** Sends a request to the real target (e.g. to read state a mutation needs). */
  forward(req: ProxyRequest): Promise<ProxyResponse>;
  /** The scopes of the bearer token of a request, per the target's whoami (cached). */
  scopesOf(req: ProxyRequest): Promise<string[]>;
  /** The target's Control API, when the run has one (a mutant that must widen the webhook allowlist). */
  control?: { url: string; secret: string };
}

export interface Mutant {
  name: string;
  /** The rule it breaks. */
  description: string;
  /** Check id → the outcome the suite must give (FAIL unless stated). */
  expect: Record<string, 'FAIL' | 'NON_STRICT'>;
  /** Rewrites the request, or answers it without the target. */
  request?(req: ProxyRequest, tools: MutantTools): Promise<ProxyRequest | ProxyResponse> | ProxyRequest | ProxyResponse;
  /** Rewrites the target's answer. */
  response?(req: ProxyRequest, res: ProxyResponse, tools: MutantTools): Promise<ProxyResponse> | ProxyResponse;
  /**
   * Uploads (POST /v1/jobs/import) are streamed, not buffered, so an upload
   * that stalls on purpose reaches the target as it is sent; this hook may
   * rewrite the status and headers of the target's answer to one (request
   * hooks never see uploads).
   */
  upload?(status: number, headers: Record<string, string>): { status: number; headers: Record<string, string> };
  /**
   * Rewrites the bytes of an upload as they stream through (a conforming
   * variant's recognizer: conformance/mutants/variants.ts). The transform must
   * keep the byte count, so the announced Content-Length stays true and a
   * stalled upload stalls at the target as it does at the proxy.
   */
  uploadBody?(): Transform;
  /**
   * With a response hook, the event streams whose path matches are read whole (a wait's one event) and
   * handed to it; the others stream through as they arrive. Unset: every stream is read whole.
   */
  bufferedStreams?: RegExp;
  /** Sees the target's answer to an upload once it has been passed on (the slow-target variant learns the import's job id). */
  uploadAnswer?(req: { headers: Record<string, string> }, status: number, body: Buffer): void;
}

const HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'host',
  'upgrade',
  'proxy-connection',
  'te',
  'trailer',
]);

function isResponse(x: ProxyRequest | ProxyResponse): x is ProxyResponse {
  return 'status' in x;
}

export function jsonOf(res: ProxyResponse): unknown {
  try {
    return JSON.parse(res.body.toString('utf8'));
  } catch {
    return undefined;
  }
}

export function withJson(res: ProxyResponse, value: unknown, status = res.status): ProxyResponse {
  return { status, headers: { ...res.headers, 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(value)) };
}

export function answer(status: number, value: unknown): ProxyResponse {
  return { status, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(value)) };
}

export function errorAnswer(status: number, code: string, message = 'refused by a mutant'): ProxyResponse {
  return answer(status, { error: { code, message } });
}

export interface RunningProxy {
  url: string;
  close(): Promise<void>;
}

/** Sends a request to the target as it is (hop-by-hop headers dropped), its answer read whole. */
function forwarder(base: string): MutantTools['forward'] {
  return async (req) => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (!HOP.has(k)) headers[k] = v;
    const init: RequestInit = { method: req.method, headers, redirect: 'manual' };
    if (req.body.length > 0 && req.method !== 'GET' && req.method !== 'HEAD') init.body = req.body;
    const url = `${base}${req.url.pathname}${req.url.search}`;
    let res: Response;
    try {
      res = await fetch(url, init);
    } catch (err) {
      // A kept-alive socket the target closed between two requests fails the next one before it is
      // sent ("fetch failed"); a client talking to the target directly would open a new connection.
      // Only requests that may be sent twice are sent again.
      if (!['GET', 'HEAD', 'OPTIONS'].includes(req.method)) throw err;
      res = await fetch(url, init);
    }
    const out: Record<string, string> = {};
    res.headers.forEach((v, k) => {
      if (!HOP.has(k)) out[k] = v;
    });
    return { status: res.status, headers: out, body: Buffer.from(await res.arrayBuffer()) };
  };
}

/** The tools a mutant's hooks get: the forwarder, a cached scope lookup, the Control API when there is one. */
function mutantTools(forward: MutantTools['forward'], control?: { url: string; secret: string }): MutantTools {
  const scopeCache = new Map<string, string[]>();
  return {
    forward,
    scopesOf: async (req) => {
      const auth = req.headers['authorization'] ?? '';
      const hit = scopeCache.get(auth);
      if (hit !== undefined) return hit;
      const res = await forward({
        method: 'GET',
        url: new URL('http://x/v1/whoami'),
        headers: { authorization: auth },
        body: Buffer.alloc(0),
      });
      const scopes = ((jsonOf(res) as { scopes?: string[] } | undefined)?.scopes ?? []).map(String);
      scopeCache.set(auth, scopes);
      return scopes;
    },
    ...(control === undefined ? {} : { control }),
  };
}

/** A buffered request through the mutant's hooks: its answer, or an event stream to pass through as it arrives. */
async function handle(
  incoming: IncomingMessage,
  mutant: Mutant,
  base: string,
  tools: MutantTools,
): Promise<ProxyResponse | { stream: Response }> {
  const chunks: Buffer[] = [];
  for await (const c of incoming) chunks.push(c as Buffer);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(incoming.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  let req: ProxyRequest = {
    method: incoming.method ?? 'GET',
    url: new URL(incoming.url ?? '/', 'http://proxy'),
    headers,
    body: Buffer.concat(chunks),
  };
  if (mutant.request !== undefined) {
    const r = await mutant.request(req, tools);
    if (isResponse(r)) return r;
    req = r;
  }
  // Event streams pass through untouched, as they arrive.
  if (
    req.headers['accept'] === 'text/event-stream' &&
    (mutant.response === undefined || (mutant.bufferedStreams !== undefined && !mutant.bufferedStreams.test(req.url.pathname)))
  ) {
    const h: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (!HOP.has(k)) h[k] = v;
    return { stream: await fetch(`${base}${req.url.pathname}${req.url.search}`, { method: req.method, headers: h }) };
  }
  const res = await tools.forward(req);
  return mutant.response === undefined ? res : mutant.response(req, res, tools);
}

/** Streams an upload through, both ways, as it arrives (no buffering of a body that may never end). */
function streamUpload(incoming: IncomingMessage, out: ServerResponse, mutant: Mutant, base: string): void {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(incoming.headers))
    if (v !== undefined && k !== 'host' && k !== 'connection') headers[k] = Array.isArray(v) ? v.join(', ') : v;
  const upstream = httpRequest(`${base}${incoming.url ?? '/'}`, { method: incoming.method ?? 'POST', headers, agent: false }, (res) => {
    let h: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined && !HOP.has(k)) h[k] = Array.isArray(v) ? v.join(', ') : v;
    let status = res.statusCode ?? 502;
    if (mutant.upload !== undefined) ({ status, headers: h } = mutant.upload(status, h));
    out.writeHead(status, h);
    if (mutant.uploadAnswer !== undefined) {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => mutant.uploadAnswer?.({ headers }, status, Buffer.concat(chunks)));
    }
    res.pipe(out);
  });
  upstream.on('error', () => out.destroy());
  incoming.on('close', () => {
    if (!incoming.complete) upstream.destroy();
  });
  if (mutant.uploadBody === undefined) incoming.pipe(upstream);
  else incoming.pipe(mutant.uploadBody()).pipe(upstream);
}

/** Writes an answer, or an event stream chunk by chunk as the target sends it. */
async function reply(out: ServerResponse, r: ProxyResponse | { stream: Response }): Promise<void> {
  if (!('stream' in r)) {
    out.writeHead(r.status, { ...r.headers, 'content-length': String(r.body.length) });
    out.end(r.body);
    return;
  }
  const h: Record<string, string> = {};
  r.stream.headers.forEach((v, k) => {
    if (!HOP.has(k)) h[k] = v;
  });
  out.writeHead(r.stream.status, h);
  try {
    if (r.stream.body !== null) for await (const chunk of r.stream.body) out.write(chunk);
    out.end();
  } catch {
    // The target closed the stream abruptly (a restart, a reset): so does the proxy.
    out.destroy();
  }
}

export async function startProxy(target: string, mutant: Mutant, control?: { url: string; secret: string }): Promise<RunningProxy> {
  const base = target.replace(/\/+$/, '');
  const tools = mutantTools(forwarder(base), control);
  return localServer((incoming, out) => {
    if (incoming.method === 'POST' && (incoming.url ?? '').split('?')[0] === '/v1/jobs/import') {
      streamUpload(incoming, out, mutant, base);
      return;
    }
    handle(incoming, mutant, base, tools).then(
      (r) => reply(out, r),
      (err: unknown) => {
        out.writeHead(502, { 'content-type': 'text/plain' });
        out.end(`mutant proxy: ${err instanceof Error ? err.message : String(err)}`);
      },
    );
  });
}
