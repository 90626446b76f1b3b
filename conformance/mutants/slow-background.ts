/**
 * The background work of the reference seen ten times slower, beyond the job
 * stages slow-target.ts slows: summary regenerations
 * (docs/decisions/105-conformance-slow-background-variants.md; the
 * recording's start and stop are slow-recorder.ts's, decision 121).
 *
 * As in slow-target.ts, the proxy keeps a timeline of what the reference
 * answers while the work runs (GET …/summary/operations/{id}, sampled until
 * the work ends) and shows a caller the state the reference had at start +
 * (now − start) / 10. A slow target is also busy for longer, and says so the
 * way the reference does while busy: a second regeneration of the meeting
 * while the slowed one still runs is refused with 409 summary_generating. The
 * summary-operation wait resolves when the slowed clock reaches the end it
 * announces.
 */
import type { Mutant, MutantTools, ProxyRequest, ProxyResponse } from './proxy.ts';
import { errorAnswer, jsonOf, withJson } from './proxy.ts';

const SLOWDOWN = 10;
const SAMPLE_MS = 40;
/** Work is followed at most this long (then shown as it is). */
const FOLLOW_MS = 10 * 60_000;

interface Timeline {
  started: number;
  samples: Array<{ at: number; value: Record<string, unknown> }>;
  /** When the reference reached the end (ms since the epoch), or null while it runs. */
  endedAt: number | null;
  /** From this moment on the work is shown as it is (a caller acted on it, it vanished, or it was followed too long). */
  realFrom: number | null;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The slowed clock's reading of a timeline: the reference's value then, or null to show the answer as it is. */
function shownAt(t: Timeline | undefined): Record<string, unknown> | null {
  if (t === undefined || (t.realFrom !== null && Date.now() >= t.realFrom)) return null;
  const clock = t.started + (Date.now() - t.started) / SLOWDOWN;
  let pick: Record<string, unknown> | null = null;
  for (const s of t.samples) if (s.at <= clock || pick === null) pick = s.value;
  return pick;
}

/** Milliseconds until the slowed clock reaches the reference's end of the work (0 when it has, or is shown as it is). */
function untilEnd(t: Timeline | undefined): number {
  if (t === undefined || t.realFrom !== null || t.endedAt === null) return 0;
  return Math.max(0, t.started + (t.endedAt - t.started) * SLOWDOWN - Date.now());
}

/** Is the work still running as the slowed clock shows it? */
function busy(t: Timeline | undefined): boolean {
  if (t === undefined || (t.realFrom !== null && Date.now() >= t.realFrom)) return false;
  return t.endedAt === null || untilEnd(t) > 0;
}

/** Samples `path` until `ended` says the work is over; a non-200 answer shows the work as it is from then on. */
function follow(tools: MutantTools, path: string, auth: string, ended: (v: Record<string, unknown>) => boolean): Timeline {
  const t: Timeline = { started: Date.now(), samples: [], endedAt: null, realFrom: null };
  void (async () => {
    while (t.endedAt === null && t.realFrom === null && Date.now() - t.started < FOLLOW_MS) {
      try {
        const res = await tools.forward({
          method: 'GET',
          url: new URL(`http://x${path}`),
          headers: { authorization: auth },
          body: Buffer.alloc(0),
        });
        const value = jsonOf(res);
        if (res.status !== 200 || value === null || typeof value !== 'object') t.realFrom = Date.now();
        else {
          t.samples.push({ at: Date.now(), value: value as Record<string, unknown> });
          if (ended(value as Record<string, unknown>)) t.endedAt = Date.now();
        }
      } catch {
        // The target restarts or is reset: the next sample tells.
      }
      await sleep(SAMPLE_MS);
    }
    if (t.endedAt === null) t.realFrom ??= Date.now();
  })();
  return t;
}

/** When the proxy received each wait request (its own timeout counts from then). */
const askedAt = new WeakMap<ProxyRequest, number>();

/**
 * Holds a wait's answer until the slowed clock reaches the end the reference's answer announced. A wait
 * whose own timeout (`timeoutMs`, from its request) comes first answers a timeout event then instead, as
 * the slow target would.
 */
async function holdWait(
  t: Timeline | undefined,
  req: ProxyRequest,
  res: ProxyResponse,
  timeoutMs: number | undefined,
): Promise<ProxyResponse> {
  const text = res.body.toString('utf8');
  if (t === undefined || !text.includes('event:') || /event:\s*timeout/.test(text)) return res;
  const deadline = timeoutMs === undefined ? Infinity : (askedAt.get(req) ?? Date.now()) + timeoutMs;
  const timedOut = async (): Promise<ProxyResponse> => {
    await sleep(Math.max(0, deadline - Date.now()));
    return { ...res, body: Buffer.from('event: timeout\ndata: {}\n\n') };
  };
  // Give the follower a moment to sample the end the wait announced.
  for (let i = 0; i < 50 && t.endedAt === null && t.realFrom === null && Date.now() < deadline; i++) await sleep(SAMPLE_MS);
  // Not sampled yet: the slowed end is later still.
  if (t.endedAt === null && t.realFrom === null && Date.now() >= deadline) return timedOut();
  const endAt = Date.now() + untilEnd(t);
  if (endAt > deadline) return timedOut();
  // In steps: a caller's action on the work (realFrom) shows it as it is, and the wait answers then too.
  while (Date.now() < endAt && t.realFrom === null) await sleep(Math.min(100, endAt - Date.now()));
  return res;
}

/** A wait's own timeout in ms from its query (`timeout_ms`, or `timeout` in seconds), when it gives one. */
function waitTimeoutMs(req: ProxyRequest): number | undefined {
  const ms = Number(req.url.searchParams.get('timeout_ms') ?? NaN);
  if (Number.isFinite(ms)) return ms;
  const seconds = Number(req.url.searchParams.get('timeout') ?? NaN);
  return Number.isFinite(seconds) ? seconds * 1000 : undefined;
}

const OPERATION_ENDED = (v: Record<string, unknown>): boolean => v['state'] === 'succeeded' || v['state'] === 'failed';
const REGENERATE = /^\/v1\/meetings\/([^/]+)\/summary\/regenerate$/;
const OPERATION = /^\/v1\/meetings\/([^/]+)\/summary\/operations\/([^/]+)(\/wait)?$/;
const SUMMARY = /^\/v1\/meetings\/([^/]+)\/summary$/;

/** Summary regenerations ten times slower (the slow summarizer of issue 36). */
export function slowSummarizer(): Pick<Mutant, 'request' | 'response'> {
  /** Operation id → its timeline; meeting id → its latest operation id. */
  const operations = new Map<string, Timeline>();
  const latest = new Map<string, string>();
  const latestOf = (meeting: string): Timeline | undefined => operations.get(latest.get(meeting) ?? '');
  return {
    request: async (req, tools) => {
      if (req.method === 'GET' && OPERATION.exec(req.url.pathname)?.[3] !== undefined) askedAt.set(req, Date.now());
      const regen = REGENERATE.exec(req.url.pathname);
      // Busy is said only to a caller the target lets in (an unauthorized one gets the target's 401 or 403).
      if (
        req.method === 'POST' &&
        regen !== null &&
        busy(latestOf(decodeURIComponent(regen[1]!))) &&
        (await tools.scopesOf(req)).includes('write')
      )
        return errorAnswer(409, 'summary_generating', 'a summary of this meeting is already being generated');
      return req;
    },
    response: async (req, res, tools) => {
      const path = req.url.pathname;
      const regen = REGENERATE.exec(path);
      const body = jsonOf(res) as Record<string, unknown> | undefined;
      if (req.method === 'POST' && regen !== null && res.status === 202 && typeof body?.['operation_id'] === 'string') {
        const meeting = decodeURIComponent(regen[1]!);
        const id = body['operation_id'];
        const opPath = `/v1/meetings/${encodeURIComponent(meeting)}/summary/operations/${encodeURIComponent(id)}`;
        operations.set(id, follow(tools, opPath, req.headers['authorization'] ?? '', OPERATION_ENDED));
        latest.set(meeting, id);
        return res;
      }
      if (req.method !== 'GET') return res;
      const op = OPERATION.exec(path);
      if (op !== null) {
        const t = operations.get(decodeURIComponent(op[2]!));
        if (op[3] !== undefined) return holdWait(t, req, res, waitTimeoutMs(req));
        const shown = res.status === 200 ? shownAt(t) : null;
        return shown === null ? res : withJson(res, { ...body, ...shown });
      }
      const summary = SUMMARY.exec(path);
      if (summary !== null && res.status === 200 && body !== undefined && busy(latestOf(decodeURIComponent(summary[1]!))))
        return withJson(res, { ...body, status: 'generating' });
      return res;
    },
  };
}

/** Several slowings in one proxy: each request and answer passes through them in turn. */
export function combine(
  ...parts: Array<Pick<Mutant, 'request' | 'response' | 'uploadAnswer'>>
): Pick<Mutant, 'request' | 'response' | 'uploadAnswer'> {
  return {
    request: async (req: ProxyRequest, tools: MutantTools) => {
      let current: ProxyRequest = req;
      for (const p of parts) {
        if (p.request === undefined) continue;
        const next = await p.request(current, tools);
        if ('status' in next) return next;
        current = next;
      }
      return current;
    },
    response: async (req: ProxyRequest, res: ProxyResponse, tools: MutantTools) => {
      let current = res;
      for (const p of parts) if (p.response !== undefined) current = await p.response(req, current, tools);
      return current;
    },
    uploadAnswer: (req, status, body) => {
      for (const p of parts) p.uploadAnswer?.(req, status, body);
    },
  };
}
