/**
 * Traffic for the load, wait and soak benchmarks: the mixed API request mix,
 * a closed-loop driver that keeps N keep-alive connections busy with it and
 * counts every answer by status, a latency histogram for charts, a store
 * seeded through the Control API, and the one-event SSE wait client.
 *
 * "Unexpected" answers are the ones API.md does not call for in this traffic:
 * every request of the mix must succeed, except that an import may get 429
 * import_budget_full (the budget is the one limit the spec names). A 5xx, a
 * connection reset or any other transport failure is always unexpected.
 */
import http from 'node:http';
import { CONFIG_SECTIONS } from '../client/spec-values.ts';
import { QUERY_MIX, meetingSeed, prng } from './corpus.ts';
import type { GatewayChild } from './gateway-child.ts';
import { latencyStats, round, type LatencyStats } from './lib.ts';

// ── Latency histogram ──────────────────────────────────────────────────────

/** Upper bucket edges in ms: 1, 1.5, 2, 3, 5, 7 per decade from 0.1 ms to 10 s; the last bucket is open. */
export const HISTOGRAM_EDGES_MS: readonly number[] = (() => {
  const steps = [1, 1.5, 2, 3, 5, 7];
  const edges: number[] = [];
  for (let decade = -1; decade <= 3; decade++) for (const s of steps) edges.push(round(s * 10 ** decade, 3));
  edges.push(10_000);
  return edges;
})();

export interface Histogram {
  /** Upper edges (ms) of the buckets; counts has one more entry, for "above the last edge". */
  edges_ms: number[];
  counts: number[];
}

export function histogram(samplesMs: readonly number[], edges: readonly number[] = HISTOGRAM_EDGES_MS): Histogram {
  const counts = new Array<number>(edges.length + 1).fill(0);
  for (const v of samplesMs) {
    let i = 0;
    while (i < edges.length && v > edges[i]!) i++;
    counts[i]! += 1;
  }
  return { edges_ms: [...edges], counts };
}

// ── The request mix ────────────────────────────────────────────────────────

export interface Op {
  /** The label the figures are grouped by. */
  name: string;
  method: string;
  path: string;
  body?: unknown;
}

/** Share of each operation in the mix, in percent (they add up to 100). */
export const MIX_WEIGHTS: Readonly<Record<string, number>> = {
  whoami: 12,
  list_meetings: 14,
  get_meeting: 16,
  transcript: 14,
  search: 12,
  config_read: 14,
  list_jobs: 4,
  health: 6,
  rename: 8,
};

export interface Store {
  meetingIds: string[];
  /** A read+write token (loopback, standard). */
  token: string;
}

/** Operation number `i` of the mix over `store`; deterministic for a given seed. */
export function mixOp(store: Store, rand: () => number): Op {
  const id = store.meetingIds[Math.floor(rand() * store.meetingIds.length)]!;
  let pick = rand() * 100;
  for (const [name, weight] of Object.entries(MIX_WEIGHTS)) {
    pick -= weight;
    if (pick > 0) continue;
    switch (name) {
      case 'whoami':
        return { name, method: 'GET', path: '/v1/whoami' };
      case 'list_meetings':
        return { name, method: 'GET', path: `/v1/meetings?limit=50&offset=${Math.floor(rand() * store.meetingIds.length)}` };
      case 'get_meeting':
        return { name, method: 'GET', path: `/v1/meetings/${id}` };
      case 'transcript':
        return { name, method: 'GET', path: `/v1/meetings/${id}/transcript` };
      case 'search':
        return {
          name,
          method: 'GET',
          path: `/v1/search?q=${encodeURIComponent(QUERY_MIX[Math.floor(rand() * QUERY_MIX.length)]!)}&limit=20`,
        };
      case 'config_read':
        return { name, method: 'GET', path: `/v1/config/${CONFIG_SECTIONS[Math.floor(rand() * CONFIG_SECTIONS.length)]!}` };
      case 'list_jobs':
        return { name, method: 'GET', path: '/v1/jobs' };
      case 'health':
        return { name, method: 'GET', path: '/health' };
      default:
        return { name: 'rename', method: 'PATCH', path: `/v1/meetings/${id}`, body: { title: `Renamed ${Math.floor(rand() * 1e9)}` } };
    }
  }
  return { name: 'whoami', method: 'GET', path: '/v1/whoami' };
}

// ── The closed-loop driver ─────────────────────────────────────────────────

export interface DriveOptions {
  port: number;
  token: string;
  connections: number;
  warmupMs: number;
  durationMs: number;
  /** The next operation; called once per request. */
  next: (rand: () => number) => Op;
  seed?: number;
  /** Statuses counted as expected besides 2xx, per operation name. */
  allowed?: Readonly<Record<string, readonly number[]>>;
  /** Per-request timeout; a request that takes longer counts as a transport failure (ETIMEDOUT). */
  requestTimeoutMs?: number;
  /** Pace: at most this many requests per second over all connections (soak); unset = as fast as answers come. */
  ratePerS?: number;
  /** Stop early (soak): checked before each request. */
  stop?: () => boolean;
}

export interface DriveResult {
  connections: number;
  /** Distinct sockets the client used (every connection opened at least once). */
  sockets_opened: number;
  requests: number;
  duration_s: number;
  rps: number;
  latency_ms: LatencyStats;
  histogram: Histogram;
  by_op: Record<string, { count: number; latency_ms: LatencyStats }>;
  /** Answers by status ("200", "429", …) and transport failures by code ("ECONNRESET", …). */
  by_status: Record<string, number>;
  /** Answers the spec does not call for: 5xx, resets, any non-2xx not allowed for its operation. */
  unexpected: number;
  /** The first few unexpected answers, for diagnosis. */
  unexpected_examples: { op: string; status: string; body: string }[];
  /**
   * Requests retried once because a reused keep-alive connection had just
   * been closed by the server's keep-alive timeout (ECONNRESET/EPIPE before
   * any answer). Not errors: the request never reached the application.
   */
  keepalive_retries: number;
}

/** What drive() counts: every answer while it records (the warm-up is not recorded), and the sockets it opened. */
class DriveTally {
  recording = false;
  readonly samples: number[] = [];
  readonly byOp = new Map<string, number[]>();
  readonly byStatus: Record<string, number> = {};
  readonly examples: DriveResult['unexpected_examples'] = [];
  unexpected = 0;
  keepAliveRetries = 0;
  socketsOpened = 0;
  private readonly sockets = new WeakSet<object>();
  private readonly allowed: DriveOptions['allowed'];

  constructor(allowed: DriveOptions['allowed']) {
    this.allowed = allowed;
  }

  socket(s: object): void {
    if (this.sockets.has(s)) return;
    this.sockets.add(s);
    this.socketsOpened += 1;
  }

  answer(op: Op, status: string, body: string, ms: number): void {
    if (!this.recording) return;
    this.samples.push(ms);
    let list = this.byOp.get(op.name);
    if (list === undefined) this.byOp.set(op.name, (list = []));
    list.push(ms);
    this.byStatus[status] = (this.byStatus[status] ?? 0) + 1;
    const code = Number(status);
    const fine = code >= 200 && code < 300 ? true : (this.allowed?.[op.name] ?? []).includes(code);
    if (!fine) {
      this.unexpected += 1;
      if (this.examples.length < 10) this.examples.push({ op: `${op.method} ${op.path}`, status, body: body.slice(0, 300) });
    }
  }

  result(connections: number, elapsedS: number): DriveResult {
    const samples = this.samples;
    return {
      connections,
      sockets_opened: this.socketsOpened,
      requests: samples.length,
      duration_s: round(elapsedS, 3),
      rps: round(samples.length / elapsedS, 1),
      latency_ms: latencyStats(samples),
      histogram: histogram(samples),
      by_op: Object.fromEntries(
        [...this.byOp]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([name, list]) => [name, { count: list.length, latency_ms: latencyStats(list) }]),
      ),
      by_status: this.byStatus,
      unexpected: this.unexpected,
      unexpected_examples: this.examples,
      keepalive_retries: this.keepAliveRetries,
    };
  }
}

/** One request of the mix on the agent's connections, its answer counted; resolves once it is answered or has failed. */
function requestOnce(o: DriveOptions, agent: http.Agent, tally: DriveTally, op: Op): Promise<void> {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const payload = op.body === undefined ? undefined : Buffer.from(JSON.stringify(op.body));
    const headers: Record<string, string | number> = { Authorization: `Bearer ${o.token}` };
    if (payload !== undefined) {
      headers['Content-Type'] = 'application/json';
      headers['Content-Length'] = payload.byteLength;
    }
    let settled = false;
    let retried = false;
    const finish = (status: string, body: string): void => {
      if (settled) return;
      settled = true;
      tally.answer(op, status, body, Number(process.hrtime.bigint() - t0) / 1e6);
      resolve();
    };
    const attempt = (): void => {
      let answered = false;
      const req = http.request({ host: '127.0.0.1', port: o.port, method: op.method, path: op.path, headers, agent }, (res) => {
        answered = true;
        const code = res.statusCode ?? 0;
        const keep = code < 200 || code >= 300;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => {
          if (keep) chunks.push(c);
        });
        res.on('end', () => finish(String(code), keep ? Buffer.concat(chunks).toString('utf8') : ''));
        res.on('error', (err: NodeJS.ErrnoException) => finish(err.code ?? 'response_error', err.message));
      });
      req.on('socket', (sock) => tally.socket(sock));
      req.on('error', (err: NodeJS.ErrnoException) => {
        // The keep-alive race every HTTP/1.1 client has: the server closed an idle kept-alive
        // connection (its keep-alive timeout) just as this request went out on it. Nothing reached
        // the application; node's documentation (request.reusedSocket) says to retry, once.
        if (req.reusedSocket && !retried && !answered && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) {
          retried = true;
          if (tally.recording) tally.keepAliveRetries += 1;
          attempt();
          return;
        }
        finish(err.code ?? 'request_error', err.message);
      });
      if (o.requestTimeoutMs !== undefined)
        req.setTimeout(o.requestTimeoutMs, () => req.destroy(Object.assign(new Error('no answer in time'), { code: 'ETIMEDOUT' })));
      req.end(payload);
    };
    attempt();
  });
}

/**
 * Keeps `connections` keep-alive connections busy with the mix (one request
 * in flight on each), first for the warm-up (nothing recorded), then for the
 * measured duration. Latency runs from the request's start to the end of its
 * answer (process.hrtime.bigint).
 */
export async function drive(o: DriveOptions): Promise<DriveResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.connections, maxFreeSockets: o.connections, keepAliveMsecs: 1000 });
  agent.on('free', () => undefined);
  const rand = prng(o.seed ?? 42);
  const tally = new DriveTally(o.allowed);
  let nextSlot = performance.now();

  const phase = async (ms: number): Promise<void> => {
    const deadline = Date.now() + ms;
    const worker = async (): Promise<void> => {
      while (Date.now() < deadline && !(o.stop?.() ?? false)) {
        if (o.ratePerS !== undefined) {
          // A shared schedule: each request takes the next slot; a late worker does not catch up in a burst.
          const now = performance.now();
          nextSlot = Math.max(nextSlot + 1000 / o.ratePerS, now - 1000);
          const wait = nextSlot - now;
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          if (Date.now() >= deadline || (o.stop?.() ?? false)) break;
        }
        await requestOnce(o, agent, tally, o.next(rand));
      }
    };
    await Promise.all(Array.from({ length: o.connections }, worker));
  };

  try {
    if (o.warmupMs > 0) await phase(o.warmupMs);
    tally.recording = true;
    const started = process.hrtime.bigint();
    await phase(o.durationMs);
    return tally.result(o.connections, Number(process.hrtime.bigint() - started) / 1e9);
  } finally {
    agent.destroy();
  }
}

// ── A store seeded through the Control API ─────────────────────────────────

/**
 * Resets the gateway (CONTROL.md, Reset: API on, Pro, webhooks on), seeds
 * `meetings` meetings of `segments` segments from the bench corpus, and mints
 * a read+write token.
 */
export async function seedStore(gw: GatewayChild, meetings: number, segments: number, concurrency = 8): Promise<Store> {
  await gw.control('POST', '/control/reset');
  const ids = new Array<string>(meetings);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < meetings) {
      const i = next++;
      const { source: _source, language: _language, ...seed } = meetingSeed(i, segments);
      ids[i] = (await gw.control<{ id: string }>('POST', '/control/meetings', seed)).id;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const minted = await gw.control<{ token: string }>('POST', '/control/tokens', { scopes: ['read', 'write'], name: 'bench' });
  return { meetingIds: ids, token: minted.token };
}

// ── One-event SSE waits ────────────────────────────────────────────────────

export interface WaitOutcome {
  /** HTTP status of the wait (0: transport failure). */
  status: number;
  /** The one event's name, or null when the stream closed without one. */
  event: string | null;
  data: unknown;
  /** performance.now() when the response headers arrived, and when the stream ended. */
  opened_at: number;
  closed_at: number;
  error?: string;
}

export interface OpenWait {
  /** Resolves once the headers (and the ": waiting" comment) arrived: the wait is held. */
  held: Promise<void>;
  done: Promise<WaitOutcome>;
  abort(): void;
}

/** GET a one-event wait stream on its own connection; parses the single event at the end. */
export function openWait(port: number, path: string, token: string): OpenWait {
  let heldResolve: () => void = () => undefined;
  const held = new Promise<void>((r) => (heldResolve = r));
  let req: http.ClientRequest | null = null;
  const done = new Promise<WaitOutcome>((resolve) => {
    let openedAt = 0;
    let settled = false;
    const finish = (o: Omit<WaitOutcome, 'opened_at' | 'closed_at'>): void => {
      if (settled) return;
      settled = true;
      heldResolve();
      resolve({ ...o, opened_at: openedAt, closed_at: performance.now() });
    };
    req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'GET',
        path,
        headers: { Authorization: `Bearer ${token}`, Accept: 'text/event-stream' },
        agent: false,
      },
      (res) => {
        openedAt = performance.now();
        const status = res.statusCode ?? 0;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          if (text === '') heldResolve();
          text += c;
        });
        res.on('end', () => {
          const parsed = parseOneEvent(text);
          finish({ status, event: parsed.event, data: parsed.data });
        });
        res.on('error', (err: NodeJS.ErrnoException) => finish({ status, event: null, data: null, error: err.code ?? err.message }));
        res.on('close', () =>
          finish({
            status,
            event: parseOneEvent(text).event,
            data: parseOneEvent(text).data,
            ...(res.complete ? {} : { error: 'closed before the end' }),
          }),
        );
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => finish({ status: 0, event: null, data: null, error: err.code ?? err.message }));
    req.end();
  });
  return { held, done, abort: () => req?.destroy() };
}

/** The single event of a wait stream: its name and JSON data (comment lines skipped). */
export function parseOneEvent(text: string): { event: string | null; data: unknown } {
  let event: string | null = null;
  let data: unknown = null;
  for (const block of text.split('\n\n')) {
    let name: string | null = null;
    const dataLines: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) name = line.slice(6).trim();
      else if (line.startsWith('data:')) dataLines.push(line.slice(5).trimStart());
    }
    if (name === null && dataLines.length === 0) continue;
    event = name ?? 'message';
    try {
      data = JSON.parse(dataLines.join('\n'));
    } catch {
      data = dataLines.join('\n');
    }
  }
  return { event, data };
}
