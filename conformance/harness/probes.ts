/**
 * Probe requests: for each operation of the spec's tables, one request that
 * gets past the auth gates without changing anything that matters (a rename
 * to the same title, a config PUT of the current section, a recording start
 * with consent_attested false, unknown ids for jobs and webhooks...). The
 * auth checks send these with many tokens and look only at the gate's answer.
 */
import type { Operation } from '../spec/operations.ts';
import { fillPath } from '../spec/operations.ts';
import type { Origin } from '../spec/auth-rules.ts';
import type { CheckContext } from './context.ts';
import type { RequestOptions } from './http.ts';

export interface ProbeResources {
  /** An existing meeting (left as it is). */
  meetingId: string;
  /** A meeting id of the same form that does not exist (for DELETE). */
  missingId: string;
  meetingTitle: string;
  summaryText: string;
  /** The current config of section vad (PUT writes it back unchanged). */
  vadConfig: unknown;
}

export interface Probe {
  path: string;
  options: RequestOptions;
}

/**
 * Changes every letter and digit of an id into another of the same class, so
 * the result has the id's form (length, dashes, hex-ness) but names nothing.
 */
export function lookalikeId(id: string, salt = 1): string {
  const hex = /^[0-9a-f-]+$/i.test(id);
  let out = '';
  for (let i = 0; i < id.length; i++) {
    const ch = id[i]!;
    const k = (i + salt) % 5;
    if (/[0-9]/.test(ch)) out += String((Number(ch) + 1 + k) % 10);
    else if (hex && /[a-f]/.test(ch)) out += 'abcdef'.charAt(('abcdef'.indexOf(ch) + 1 + k) % 6);
    else if (hex && /[A-F]/.test(ch)) out += 'ABCDEF'.charAt(('ABCDEF'.indexOf(ch) + 1 + k) % 6);
    else if (/[a-z]/.test(ch)) out += String.fromCharCode(97 + ((ch.charCodeAt(0) - 97 + 1 + k) % 26));
    else if (/[A-Z]/.test(ch)) out += String.fromCharCode(65 + ((ch.charCodeAt(0) - 65 + 1 + k) % 26));
    else out += ch;
  }
  // Keep a version nibble of a UUID v4 plausible.
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-4/i.test(id)) out = `${out.slice(0, 14)}4${out.slice(15)}`;
  return out === id ? `${id}0` : out;
}

export function probeFor(op: Operation, r: ProbeResources, origin: Origin = 'loopback'): Probe {
  const key = `${op.method} ${op.path}`;
  const ids = { id: r.meetingId, operation_id: r.missingId, section: 'vad' };
  const missing = { id: r.missingId, operation_id: r.missingId, section: 'vad' };
  // A granted stream is not read: the probes judge the gates, and the recording wait would hold each one for its 1 s timeout.
  const stream = { readBodyMs: 1500, timeoutMs: 10_000, skipEventStream: true };
  switch (key) {
    case 'GET /v1/search':
      return { path: op.path, options: { query: { q: 'probe', limit: 1 } } };
    case 'GET /v1/meetings':
      return { path: op.path, options: { query: { limit: 1 } } };
    case 'PATCH /v1/meetings/{id}':
      return { path: fillPath(op.path, ids), options: { json: { title: r.meetingTitle } } };
    case 'DELETE /v1/meetings/{id}':
      return { path: fillPath(op.path, missing), options: {} };
    case 'PUT /v1/meetings/{id}/summary':
      return { path: fillPath(op.path, ids), options: { json: { text: r.summaryText } } };
    case 'POST /v1/meetings/{id}/summary/regenerate':
      // A wrongly typed field: refused by validation after the gates, so nothing starts.
      return { path: fillPath(op.path, ids), options: { json: { template_id: 42 } } };
    case 'GET /v1/meetings/{id}/summary/operations/{operation_id}/wait':
      return { path: fillPath(op.path, ids), options: { query: { timeout_ms: 1 }, ...stream } };
    case 'PUT /v1/meetings/{id}/speaker-labels':
      return { path: fillPath(op.path, ids), options: { json: { labels: {} } } };
    case 'PUT /v1/config/{section}':
      return { path: fillPath(op.path, ids), options: { json: r.vadConfig ?? {} } };
    case 'POST /v1/jobs/diarization':
      return { path: op.path, options: { json: {} } };
    case 'POST /v1/jobs/import':
      return { path: op.path, options: { body: new Uint8Array(0), contentType: 'application/octet-stream' } };
    case 'GET /v1/jobs/{id}/wait':
      return { path: fillPath(op.path, missing), options: { query: { timeout: 1 }, ...stream } };
    case 'POST /v1/recording/start':
      // Loopback: consent_attested false is refused (400) after the gates, so nothing records.
      // Remote: a plain start, which must meet 403 not_prearmed (pre-arming is off).
      return { path: op.path, options: { json: origin === 'loopback' ? { consent_attested: false } : {} } };
    case 'GET /v1/recording/wait':
      return { path: op.path, options: { query: { until: 'started', timeout: 1 }, ...stream } };
    case 'POST /v1/webhooks':
      return { path: op.path, options: { json: {} } };
    case 'POST /v1/pair/request':
      return { path: op.path, options: { json: {} } };
    default: {
      const usesMeeting = op.path.startsWith('/v1/meetings/');
      const path = op.path.includes('{') ? fillPath(op.path, usesMeeting ? ids : missing) : op.path;
      const options: RequestOptions = op.method === 'POST' ? { json: {} } : {};
      if (op.stream === true) Object.assign(options, stream);
      // Job and webhook control routes take no body.
      if (op.method === 'POST' && /\/(cancel|pause|resume|retry|test|stop)$/.test(op.path)) delete options.json;
      return { path, options };
    }
  }
}

/** Seeds the meeting the probes use and reads the current vad config (Control API 'meetings' and 'tokens'). */
export async function setupProbes(ctx: CheckContext): Promise<ProbeResources> {
  const admin = ctx.as(await ctx.token());
  const m = await ctx.fixtures.meeting();
  const vad = await admin.get('/v1/config/vad', { label: 'probe setup: current vad config' });
  const vadConfig = vad.status === 200 ? (vad.body as { config?: unknown }).config : undefined;
  if (vadConfig === undefined) ctx.note(`GET /v1/config/vad answered ${vad.describe(100)}; the PUT /v1/config/{section} probe sends {}`);
  return {
    meetingId: m.id,
    missingId: lookalikeId(m.id),
    meetingTitle: m.seed.title,
    summaryText: m.seed.summary?.text ?? 'Summary.',
    vadConfig,
  };
}
