/**
 * Webhook benchmark: the real delivery path (server/delivery: dispatcher,
 * HTTP transport, signatures, destination checks, the delivery log in SQLite)
 * in a gateway child process (bench/servers/webhook-gateway.ts), events
 * published on its deps.bus, receivers on 127.0.0.1 in this process.
 *
 *   throughput   N events published in one burst to one allowed
 *                at-least-once webhook; signed deliveries per second from the
 *                first publish to the last delivery received (the receiver
 *                checks every signature with verify()). Baseline: N plain
 *                unsigned POSTs of the same size from a minimal loop in the
 *                same child process, to the same receiver, with the
 *                dispatcher's concurrency and a connection per request (as
 *                the transport). Interleaved rounds; best and median.
 *   retries      one at-least-once webhook to a receiver that always answers
 *                500: the arrival times of its 6 attempts and each gap
 *                against the nominal 1, 2, 4, 8, 16 s (a gap also holds the
 *                attempt itself: connect, send, answer). About 31 s; the tiny
 *                run checks the first two gaps.
 *   memory       a webhook to a receiver that accepts the connection and
 *                never answers; the queue filled to its bound (10,000) with
 *                events; heap and RSS before and after (after a full GC);
 *                bytes per queued delivery; then a few more events, which the
 *                dispatcher must drop and count in events_dropped.
 *
 * Target, reported and never asserted: >= 1,000 signed deliveries per second.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DISPATCH_DEFAULTS, MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../server/features/webhooks/dispatcher.ts';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verify } from '../server/features/webhooks/signature.ts';
import {
  fmt,
  formatRows,
  machine,
  ratio,
  round,
  rounds,
  startServer,
  target,
  type BenchReport,
  type BenchRunOptions,
  type ChildServer,
  type Rounds,
} from './lib.ts';
import type { WebhookGatewayArg } from './servers/webhook-gateway.ts';

export interface WebhooksConfig {
  /** Throughput rounds, interleaved signed / plain. */
  rounds: number;
  /** Events (deliveries) per throughput round. */
  events: number;
  /** Deliveries and plain POSTs sent once before the rounds, unmeasured (JIT, connection paths, SQLite pages). */
  warmup_events: number;
  /** Concurrency of the plain baseline: the dispatcher's own. */
  concurrency: number;
  /** Attempts whose arrival is recorded in the retry run (6 = all; the tiny run stops at 3: two gaps). */
  retry_attempts: number;
  /** The dispatcher's queue bound for the memory run; null = the real default (10,000). */
  queue_limit: number | null;
  /** Events published past the bound (each must be dropped and counted). */
  over_limit_events: number;
}

export const FULL: WebhooksConfig = {
  rounds: 3,
  events: 3_000,
  warmup_events: 500,
  concurrency: DISPATCH_DEFAULTS.concurrency,
  retry_attempts: MAX_ATTEMPTS,
  queue_limit: null,
  over_limit_events: 100,
};

export const TINY: WebhooksConfig = {
  rounds: 1,
  events: 50,
  warmup_events: 20,
  concurrency: DISPATCH_DEFAULTS.concurrency,
  retry_attempts: 3,
  queue_limit: 1_000,
  over_limit_events: 10,
};

const GATEWAY = fileURLToPath(new URL('./servers/webhook-gateway.ts', import.meta.url));

// ── Receivers (in this process) ────────────────────────────────────────────

interface Arrivals {
  /** performance.now() of each arrival, in order. */
  at: number[];
  bodyBytes: number;
  signatureOk: number;
  signatureBad: number;
  unsigned: number;
  status: number;
}

interface Receiver {
  port: number;
  target: string;
  url(path: string): string;
  /** Starts counting requests to `path` afresh; `secret` makes it check signatures. */
  expect(path: string, status: number, secret?: string): Arrivals;
  waitFor(path: string, count: number, timeoutMs: number): Promise<Arrivals>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const paths = new Map<string, Arrivals & { secret?: string }>();
  const waiters: { path: string; count: number; done: () => void }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const a = paths.get(req.url ?? '');
      if (a === undefined) {
        res.statusCode = 404;
        res.end();
        return;
      }
      const rawBody = Buffer.concat(chunks);
      a.bodyBytes = rawBody.length;
      const signature = req.headers[SIGNATURE_HEADER.toLowerCase()] as string | undefined;
      if (signature === undefined) a.unsigned += 1;
      else if (a.secret !== undefined) {
        const timestamp = req.headers[TIMESTAMP_HEADER.toLowerCase()] as string | undefined;
        const ok = verify({ secret: a.secret, timestamp, signatureHeader: signature, rawBody, now: new Date() }).ok;
        if (ok) a.signatureOk += 1;
        else a.signatureBad += 1;
      }
      a.at.push(at);
      res.statusCode = a.status;
      res.end(a.status === 200 ? 'ok' : 'no');
      for (const w of [...waiters]) {
        if (w.path === req.url && a.at.length >= w.count) {
          waiters.splice(waiters.indexOf(w), 1);
          w.done();
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    target: `127.0.0.1:${port}`,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    expect(path, status, secret) {
      const a = { at: [], bodyBytes: 0, signatureOk: 0, signatureBad: 0, unsigned: 0, status, ...(secret !== undefined ? { secret } : {}) };
      paths.set(path, a);
      return a;
    },
    waitFor(path, count, timeoutMs) {
      const a = paths.get(path);
      if (a === undefined) return Promise.reject(new Error(`nothing expected at ${path}`));
      if (a.at.length >= count) return Promise.resolve(a);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(w), 1);
          reject(new Error(`receiver ${path}: ${a.at.length} of ${count} requests after ${timeoutMs} ms`));
        }, timeoutMs);
        const w = {
          path,
          count,
          done: () => {
            clearTimeout(timer);
            resolve(a);
          },
        };
        waiters.push(w);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A receiver that accepts every connection and never reads or answers. */
interface StallReceiver {
  target: string;
  url: string;
  connections: () => number;
  close(): Promise<void>;
}

async function startStallReceiver(): Promise<StallReceiver> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    target: `127.0.0.1:${port}`,
    url: `http://127.0.0.1:${port}/stall`,
    connections: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

// ── The gateway's API ──────────────────────────────────────────────────────

async function api(base: string, auth: string, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { Authorization: auth, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Registers a webhook through the Automation API and allows it through the Control API; returns its secret. */
async function allowedWebhook(gw: ChildServer, controlSecret: string, url: string, event: string): Promise<{ id: string; secret: string }> {
  const base = `http://127.0.0.1:${gw.info.port}`;
  const created = await api(base, `Bearer ${String(gw.info['token'])}`, 'POST', '/v1/webhooks', {
    url,
    events: [event],
    delivery_mode: 'at-least-once',
  });
  const id = String(created['id']);
  await api(`http://127.0.0.1:${String(gw.info['control_port'])}`, `Bearer ${controlSecret}`, 'POST', `/control/webhooks/${id}/approval`, {
    state: 'allowed',
  });
  return { id, secret: String(created['hmac_secret']) };
}

interface Counters {
  events_dropped: number;
  deliveries_failed: number;
  held: number;
}

async function drained(gw: ChildServer, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while ((await gw.call<Counters>('counters')).held > 0) {
    if (Date.now() > until) throw new Error(`the dispatcher still holds deliveries after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// ── The benchmark ──────────────────────────────────────────────────────────

interface ThroughputFigures {
  events: number;
  concurrency: number;
  deliveries_per_s: Rounds;
  seconds: Rounds;
}

/** What the three measurements share: the gateway child, its receivers and the webhooks pointed at them. */
interface WebhookBench {
  gw: ChildServer;
  cfg: WebhooksConfig;
  receiver: Receiver;
  stall: StallReceiver;
  hooks: { signed: { id: string; secret: string } };
  benchmarks: Record<string, unknown>;
  log: (line: string) => void;
}

/** 1. Throughput: signed deliveries against plain POSTs of the same size, in interleaved rounds. */
async function measureThroughput({ gw, cfg, receiver, hooks, benchmarks, log }: WebhookBench): Promise<void> {
  const waitMs = Math.max(30_000, cfg.events * 20);
  const signedRate: number[] = [];
  const plainRate: number[] = [];
  const signedSeconds: number[] = [];
  const plainSeconds: number[] = [];
  let envelopeBytes = 0;
  let signatureBad = 0;
  let signatureOk = 0;
  let plainFailed = 0;
  if (cfg.warmup_events > 0) {
    log(`webhooks: warm-up: ${cfg.warmup_events} deliveries and ${cfg.warmup_events} plain POSTs`);
    receiver.expect('/signed', 200, hooks.signed.secret);
    await gw.call('publish', { n: cfg.warmup_events, event: 'job.completed' });
    await receiver.waitFor('/signed', cfg.warmup_events, waitMs);
    await drained(gw, waitMs);
    receiver.expect('/plain', 200);
    await gw.call('plain', { n: cfg.warmup_events, concurrency: cfg.concurrency, url: receiver.url('/plain'), bytes: 250 });
    await receiver.waitFor('/plain', cfg.warmup_events, waitMs);
  }
  for (let r = 1; r <= cfg.rounds; r++) {
    const signed = receiver.expect('/signed', 200, hooks.signed.secret);
    let t0 = performance.now();
    await gw.call('publish', { n: cfg.events, event: 'job.completed' });
    await receiver.waitFor('/signed', cfg.events, waitMs);
    let s = (signed.at[cfg.events - 1]! - t0) / 1000;
    signedSeconds.push(s);
    signedRate.push(cfg.events / s);
    envelopeBytes = signed.bodyBytes;
    signatureOk += signed.signatureOk;
    signatureBad += signed.signatureBad + signed.unsigned;
    await drained(gw, waitMs); // the last deliveries' log entries are written before the baseline starts
    log(`webhooks: signed round ${r}/${cfg.rounds}: ${cfg.events} deliveries in ${fmt(s, 3)} s = ${fmt(cfg.events / s, 0)}/s`);

    const plain = receiver.expect('/plain', 200);
    t0 = performance.now();
    const done = await gw.call<{ failed: number }>('plain', {
      n: cfg.events,
      concurrency: cfg.concurrency,
      url: receiver.url('/plain'),
      bytes: envelopeBytes,
    });
    await receiver.waitFor('/plain', cfg.events, waitMs);
    s = (plain.at[cfg.events - 1]! - t0) / 1000;
    plainSeconds.push(s);
    plainRate.push(cfg.events / s);
    plainFailed += done.failed;
    log(`webhooks: plain  round ${r}/${cfg.rounds}: ${cfg.events} POSTs in ${fmt(s, 3)} s = ${fmt(cfg.events / s, 0)}/s`);
  }
  const signedFig: ThroughputFigures = {
    events: cfg.events,
    concurrency: cfg.concurrency,
    deliveries_per_s: rounds(signedRate, 1),
    seconds: rounds(signedSeconds, 3, true),
  };
  benchmarks['signed_deliveries'] = {
    ...signedFig,
    envelope_bytes: envelopeBytes,
    signatures_verified: signatureOk,
    signatures_failed: signatureBad,
  };
  benchmarks['plain_posts'] = {
    events: cfg.events,
    concurrency: cfg.concurrency,
    deliveries_per_s: rounds(plainRate, 1),
    seconds: rounds(plainSeconds, 3, true),
    body_bytes: envelopeBytes,
    failed: plainFailed,
  };
}

/** 2. Retry waits: the gaps between attempts against a receiver answering 500, beside the nominal delays. */
async function measureRetryWaits({ gw, cfg, receiver, benchmarks, log }: WebhookBench): Promise<void> {
  const retry = receiver.expect('/retry', 500);
  const nominal = RETRY_DELAYS_MS.slice(0, cfg.retry_attempts - 1).map((ms) => ms / 1000);
  log(`webhooks: retries: ${cfg.retry_attempts} attempts against a receiver answering 500 (about ${nominal.reduce((a, b) => a + b, 0)} s)`);
  await gw.call('publish', { n: 1, event: 'job.failed' });
  await receiver.waitFor('/retry', cfg.retry_attempts, nominal.reduce((a, b) => a + b, 0) * 1000 + 30_000);
  const at = retry.at.slice(0, cfg.retry_attempts);
  const gaps = at.slice(1).map((t, i) => {
    const gap = (t - at[i]!) / 1000;
    return { nominal_s: nominal[i]!, gap_s: round(gap, 4), error_ms: round((gap - nominal[i]!) * 1000, 1) };
  });
  for (const g of gaps)
    log(`webhooks: retry gap ${fmt(g.gap_s, 3)} s against ${g.nominal_s} s: ${g.error_ms >= 0 ? '+' : ''}${fmt(g.error_ms, 1)} ms`);
  const errors = gaps.map((g) => Math.abs(g.error_ms));
  benchmarks['retry_waits'] = {
    attempts_recorded: at.length,
    status_answered: 500,
    arrivals_s: at.map((t) => round((t - at[0]!) / 1000, 4)),
    gaps,
    max_abs_error_ms: errors.length === 0 ? null : Math.max(...errors),
    note: 'a gap is the wait after a failed attempt plus the next attempt up to its arrival; the wait starts when the 500 has been read',
  };
  if (cfg.retry_attempts === MAX_ATTEMPTS) await drained(gw, 30_000);
}

/** 3. Memory with the queue full: bytes per queued event, and the events over the bound dropped. */
async function measureQueueMemory({ gw, cfg, stall, benchmarks, log }: WebhookBench): Promise<void> {
  const before = await gw.call<NodeJS.MemoryUsage>('memory', { gc: true });
  const c0 = await gw.call<Counters>('counters');
  const limit = cfg.queue_limit ?? DISPATCH_DEFAULTS.queueLimit;
  const fill = limit - c0.held;
  log(`webhooks: memory: ${fill} events to a receiver that never answers (queue bound ${limit}, ${c0.held} held already)`);
  const published = await gw.call<{ publish_ms: number }>('publish', { n: fill, event: 'job.cancelled' });
  const c1 = await gw.call<Counters>('counters');
  const after = await gw.call<NodeJS.MemoryUsage>('memory', { gc: true });
  await gw.call('publish', { n: cfg.over_limit_events, event: 'job.cancelled' });
  const c2 = await gw.call<Counters>('counters');
  const queued = c1.held - c0.held;
  const per = (key: 'heapUsed' | 'rss' | 'external' | 'arrayBuffers') =>
    queued > 0 ? round((after[key] - before[key]) / queued, 0) : null;
  const dropped = c2.events_dropped - c1.events_dropped;
  benchmarks['queue_memory'] = {
    queue_limit: limit,
    queued,
    held_after: c1.held,
    publish_ms: round(published.publish_ms, 1),
    stalled_connections: stall.connections(),
    before: pickMemory(before),
    after: pickMemory(after),
    bytes_per_queued_event: { heap_used: per('heapUsed'), rss: per('rss'), external: per('external') },
    note:
      'heap_used (after a full GC) is the figure; RSS moves with the allocator and V8 spaces (it ' +
      'plateaus near 300 MB after the throughput bursts) and can even fall',
    over_limit_published: cfg.over_limit_events,
    events_dropped: dropped,
    events_dropped_total: c2.events_dropped,
    dropped_as_expected: dropped === cfg.over_limit_events && c2.held === c1.held,
  };
  log(
    `webhooks: memory: ${queued} queued, heap +${fmt((after.heapUsed - before.heapUsed) / 2 ** 20, 1)} MiB (${fmt(per('heapUsed'), 0)} B each), RSS ${after.rss >= before.rss ? '+' : ''}${fmt((after.rss - before.rss) / 2 ** 20, 1)} MiB; ${dropped} of ${cfg.over_limit_events} over the bound dropped`,
  );
}

async function benchWebhooks(opts: BenchRunOptions): Promise<BenchReport> {
  const cfg = opts.tiny ? TINY : FULL;
  const log = opts.log;
  const dataDir = mkdtempSync(join(tmpdir(), 'mas-bench-webhooks-'));
  const receiver = await startReceiver();
  const stall = await startStallReceiver();
  const controlSecret = randomBytes(24).toString('base64url');
  let gw: ChildServer | null = null;
  const benchmarks: Record<string, unknown> = {};
  try {
    const arg: WebhookGatewayArg = {
      dataDir,
      allowlist: [receiver.target, stall.target],
      controlSecret,
      ...(cfg.queue_limit !== null ? { queueLimit: cfg.queue_limit } : {}),
    };
    gw = await startServer(GATEWAY, arg, 60_000, { execArgv: ['--expose-gc'] });
    const hooks = {
      signed: await allowedWebhook(gw, controlSecret, receiver.url('/signed'), 'job.completed'),
      retry: await allowedWebhook(gw, controlSecret, receiver.url('/retry'), 'job.failed'),
      stall: await allowedWebhook(gw, controlSecret, stall.url, 'job.cancelled'),
    };

    const bench: WebhookBench = { gw, cfg, receiver, stall, hooks, benchmarks, log };
    await measureThroughput(bench);
    await measureRetryWaits(bench);
    await measureQueueMemory(bench);
  } finally {
    await gw?.stop();
    await receiver.close();
    await stall.close();
    rmSync(dataDir, { recursive: true, force: true });
  }

  const signed = benchmarks['signed_deliveries'] as ThroughputFigures;
  const plain = benchmarks['plain_posts'] as ThroughputFigures;
  const ratios = {
    signed_vs_plain: ratio(signed.deliveries_per_s.best, plain.deliveries_per_s.best),
    signed_vs_plain_median: ratio(signed.deliveries_per_s.median, plain.deliveries_per_s.median),
  };
  return {
    generated_at: new Date().toISOString(),
    machine: machine(),
    config: {
      ...cfg,
      tiny: opts.tiny,
      receiver: 'node:http on 127.0.0.1 in the bench process; checks every signature with verify() before answering 200',
      gateway:
        'bench/servers/webhook-gateway.ts: createDeps + createApp with the real delivery parts, SQLite file in a temporary data folder',
      note: 'rates run from just before the publish (or baseline) command is sent to the gateway process until the last request has arrived',
    },
    benchmarks,
    ratios,
    baselines: {
      signed_vs_plain: 'plain unsigned POSTs from a minimal loop, same receiver, same concurrency, a connection each (best round)',
      signed_vs_plain_median: 'the same, median rounds',
    },
    targets: {
      signed_deliveries_per_s: target(signed.deliveries_per_s.best, { min: 1000 }),
    },
  };
}

function pickMemory(m: NodeJS.MemoryUsage): Record<string, number> {
  return { rss: m.rss, heap_used: m.heapUsed, heap_total: m.heapTotal, external: m.external, array_buffers: m.arrayBuffers };
}

export const run = benchWebhooks;

interface RetryWaits {
  gaps: { nominal_s: number; gap_s: number; error_ms: number }[];
  max_abs_error_ms: number | null;
}

interface QueueMemory {
  queue_limit: number;
  queued: number;
  bytes_per_queued_event: { heap_used: number | null; rss: number | null };
  before: Record<string, number>;
  after: Record<string, number>;
  over_limit_published: number;
  events_dropped: number;
  dropped_as_expected: boolean;
}

function parts(report: BenchReport) {
  const b = report.benchmarks;
  return {
    signed: b['signed_deliveries'] as (ThroughputFigures & { signatures_failed: number }) | undefined,
    plain: b['plain_posts'] as ThroughputFigures | undefined,
    retry: b['retry_waits'] as RetryWaits | undefined,
    memory: b['queue_memory'] as QueueMemory | undefined,
  };
}

export function table(report: BenchReport): string {
  const { signed, plain, retry, memory } = parts(report);
  const rows: string[][] = [['throughput', 'best /s', 'median /s', 'rounds /s']];
  for (const [label, x] of [
    ['signed deliveries (dispatcher)', signed],
    ['plain POSTs (baseline)', plain],
  ] as const) {
    rows.push([
      label,
      fmt(x?.deliveries_per_s.best, 0),
      fmt(x?.deliveries_per_s.median, 0),
      (x?.deliveries_per_s.rounds ?? []).map((v) => fmt(v, 0)).join(' / '),
    ]);
  }
  const lines = [formatRows(rows), ''];
  const gapRows: string[][] = [['retry gap', 'nominal s', 'measured s', 'error ms']];
  retry?.gaps.forEach((g, i) => gapRows.push([`${i + 1} → ${i + 2}`, fmt(g.nominal_s, 0), fmt(g.gap_s, 3), fmt(g.error_ms, 1)]));
  lines.push(formatRows(gapRows), '');
  if (memory !== undefined) {
    lines.push(
      `queue memory: ${memory.queued} queued (bound ${memory.queue_limit}): ${fmt(memory.bytes_per_queued_event.heap_used, 0)} B heap per queued event; ` +
        `${memory.events_dropped} of ${memory.over_limit_published} over the bound dropped (${memory.dropped_as_expected ? 'as expected' : 'NOT as expected'})`,
    );
  }
  for (const [name, value] of Object.entries(report.ratios)) lines.push(`${name}: ${fmt(value, 3)}`);
  for (const [name, t] of Object.entries(report.targets))
    lines.push(`target ${name} ${t.target}: ${fmt(t.value, 1)} → ${t.met ? 'met' : 'NOT met'}`);
  return lines.join('\n');
}

export function markdown(report: BenchReport): string {
  const { signed, plain, retry, memory } = parts(report);
  const out: string[] = [];
  out.push('| throughput | best /s | median /s | rounds /s |', '|---|---:|---:|---|');
  for (const [label, x] of [
    [`signed deliveries through the dispatcher (${signed?.events ?? '?'} events, concurrency ${signed?.concurrency ?? '?'})`, signed],
    ['plain unsigned POSTs, minimal loop (baseline)', plain],
  ] as const) {
    out.push(
      `| ${label} | ${fmt(x?.deliveries_per_s.best, 0)} | ${fmt(x?.deliveries_per_s.median, 0)} | ${(x?.deliveries_per_s.rounds ?? []).map((v) => fmt(v, 0)).join(' / ')} |`,
    );
  }
  out.push('', '| retry gap | nominal s | measured s | error ms |', '|---|---:|---:|---:|');
  retry?.gaps.forEach((g, i) =>
    out.push(`| attempt ${i + 1} → ${i + 2} | ${fmt(g.nominal_s, 0)} | ${fmt(g.gap_s, 3)} | ${fmt(g.error_ms, 1)} |`),
  );
  if (memory !== undefined) {
    out.push(
      '',
      '| queue memory | value |',
      '|---|---:|',
      `| deliveries queued (bound ${memory.queue_limit}) | ${memory.queued} |`,
      `| heap used before → after (MiB) | ${fmt((memory.before['heap_used'] ?? 0) / 2 ** 20, 1)} → ${fmt((memory.after['heap_used'] ?? 0) / 2 ** 20, 1)} |`,
      `| RSS before → after (MiB) | ${fmt((memory.before['rss'] ?? 0) / 2 ** 20, 1)} → ${fmt((memory.after['rss'] ?? 0) / 2 ** 20, 1)} |`,
      `| heap bytes per queued event | ${fmt(memory.bytes_per_queued_event.heap_used, 0)} |`,
      `| events_dropped after ${memory.over_limit_published} more | ${memory.events_dropped} (${memory.dropped_as_expected ? 'as expected' : 'NOT as expected'}) |`,
    );
  }
  return out.join('\n');
}
