/**
 * Soak: mixed work against the real gateway (server/main.ts in a child
 * process, bench/probe.ts preloaded) for a number of minutes, sampling the
 * gateway from the inside every few seconds, to show that memory and file
 * descriptors stay flat and nothing goes wrong over time.
 *
 *   node bench/soak.ts --minutes 20     (npm run soak, make soak) → reports/bench-soak-20min.json
 *   node bench/soak.ts --minutes 2      (npm run soak:ci)         → reports/bench-soak-2min.json
 *   npm run bench -- --only soak        a 2.5-minute soak inside the benchmark report → reports/bench-soak.json
 *
 * The work, all at once:
 *   reads      the load benchmark's request mix (bench/traffic.ts), paced at
 *              `read_rate_per_s` over a few keep-alive connections
 *   waits      every `waits_every_s`: held jobs with `waits` SSE waits on
 *              them, released (half succeed, half fail), every wait checked
 *              for its job's terminal event; plus waits with timeout=1 that
 *              must end with the `timeout` event
 *   imports    every `import_every_s`: a short synthetic meeting (the
 *              simulator's "tiny" script, spoken by espeak-ng, encoded to
 *              m4a by ffmpeg, rendered once and cached in .tmp/bench/)
 *              imported and waited for; it must reach succeeded. A 429
 *              import_budget_full is the one refusal API.md calls for.
 *   webhooks   a receiver on loopback (allowlisted through the Control API,
 *              then restart), subscribed to job.completed and job.failed;
 *              every job event must arrive, signed correctly
 *
 * Samples (each after a full GC, so memory figures are not the allocator's
 * mood of the moment): RSS, heap used, open descriptors, event-loop delay
 * since the previous sample.
 *
 * "Flat", robustly:
 *   memory       the least-squares slope of post-GC RSS and heap used over the
 *                second half of the run (after the warm-up), in MiB/min, is
 *                below a threshold
 *   descriptors  counted at two quiet points, all work stopped and the
 *                connections closed: after the warm-up and at the end; the
 *                end count is within a small slack of the first
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lineChart } from './charts.ts';
import { startGatewayChild, httpCall, type GatewayChild } from './gateway-child.ts';
import {
  fmt,
  formatRows,
  machine,
  readFlags,
  round,
  target,
  type BenchReport,
  type BenchRunOptions,
  type Chart,
  type Target,
} from './lib.ts';
import type { ProbeSample } from './probe.ts';
import { waitRound, wrongness } from './sse-waits.ts';
import { drive, mixOp, openWait, seedStore, type DriveResult, type Store } from './traffic.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));

export interface SoakConfig {
  minutes: number;
  /** The warm-up: this share of the run, at least warmup_min_s. */
  warmup_fraction: number;
  warmup_min_s: number;
  sample_every_s: number;
  meetings: number;
  segments_per_meeting: number;
  read_connections: number;
  read_rate_per_s: number;
  waits_every_s: number;
  waits: number;
  wait_jobs: number;
  timeout_waits: number;
  import_every_s: number;
  /**
   * Thresholds of "flat": the slope limit over the second half is
   * max_*_slope_mb_per_min + *_step_allowance_mb / (minutes in the second
   * half). A trend (a leak) grows with time and fails a long soak; a single
   * step (the allocator taking another arena, a cache filling once) is
   * allowed for, which matters in a 2-minute run where one 4 MiB step alone
   * reads as 4 MiB/min.
   */
  max_rss_slope_mb_per_min: number;
  rss_step_allowance_mb: number;
  max_heap_slope_mb_per_min: number;
  heap_step_allowance_mb: number;
  /** Descriptors at the end (quiet) over those after the warm-up (quiet). */
  fd_slack: number;
  gateway_args: string[];
}

export function soakConfig(minutes: number): SoakConfig {
  return {
    minutes,
    warmup_fraction: 0.2,
    warmup_min_s: Math.min(30, minutes * 60 * 0.25),
    sample_every_s: minutes >= 10 ? 5 : minutes >= 1 ? 2 : 1,
    meetings: 200,
    segments_per_meeting: 30,
    read_connections: 8,
    read_rate_per_s: 150,
    waits_every_s: 5,
    waits: 200,
    wait_jobs: 4,
    timeout_waits: 10,
    import_every_s: minutes >= 1 ? 20 : 5,
    max_rss_slope_mb_per_min: 2,
    rss_step_allowance_mb: 8,
    max_heap_slope_mb_per_min: 0.5,
    heap_step_allowance_mb: 2,
    fd_slack: 5,
    gateway_args: [],
  };
}

export const FULL = soakConfig(2.5);
export const TINY = soakConfig(0.4);

// ── The speech file, rendered once ─────────────────────────────────────────

const CACHE_DIR = join(REPO, '.tmp', 'bench');

/** The simulator's "tiny" meeting encoded to m4a, cached in .tmp/bench/ (rendered with espeak-ng, encoded with ffmpeg). */
export async function tinyMeetingFile(): Promise<string> {
  const out = join(CACHE_DIR, 'tiny.m4a');
  if (existsSync(out) && statSync(out).size > 1000) return out;
  mkdirSync(CACHE_DIR, { recursive: true });
  const { loadScript } = await import('../simulator/scripts/load-script.ts');
  const { renderScript } = await import('../simulator/synth/render-script.ts');
  const { encodeFormat } = await import('../simulator/encode/encode-format.ts');
  const wav = join(CACHE_DIR, 'tiny.wav');
  await renderScript(await loadScript('tiny'), wav);
  await encodeFormat(wav, 'm4a', out);
  return out;
}

// ── The webhook receiver ───────────────────────────────────────────────────

interface Receiver {
  target: string;
  url: string;
  setSecret(secret: string): void;
  /** Unique event ids received with a valid signature. */
  events: Set<string>;
  deliveries: number;
  badSignatures: number;
  close(): Promise<void>;
}

/** Checks X-Service-Signature as API.md describes: HMAC-SHA256 over "{timestamp}.{raw body}", lowercase hex, constant-time compare. */
export function signatureOk(secret: string, timestamp: string | undefined, header: string | undefined, raw: Buffer): boolean {
  if (timestamp === undefined || header === undefined || !header.startsWith('sha256=')) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(`${timestamp}.`).update(raw).digest('hex'));
  const given = Buffer.from(header.slice(7));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

async function startReceiver(): Promise<Receiver> {
  let secret = '';
  const r = {
    events: new Set<string>(),
    deliveries: 0,
    badSignatures: 0,
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      r.deliveries += 1;
      if (
        !signatureOk(
          secret,
          req.headers['x-service-timestamp'] as string | undefined,
          req.headers['x-service-signature'] as string | undefined,
          raw,
        )
      )
        r.badSignatures += 1;
      else {
        try {
          r.events.add(String((JSON.parse(raw.toString('utf8')) as { event_id?: unknown }).event_id));
        } catch {
          r.badSignatures += 1;
        }
      }
      res.statusCode = 200;
      res.end('ok');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(r, {
    target: `127.0.0.1:${port}`,
    url: `http://127.0.0.1:${port}/hook`,
    setSecret: (s: string) => {
      secret = s;
    },
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  });
}

// ── The soak ───────────────────────────────────────────────────────────────

export interface SoakSample {
  /** Seconds since the work started. */
  t_s: number;
  phase: 'warmup' | 'main';
  rss_mb: number;
  heap_used_mb: number;
  external_mb: number;
  fds: number | null;
  eld_p50_ms: number;
  eld_p99_ms: number;
  eld_max_ms: number;
}

interface Counts {
  reads: number;
  reads_unexpected: number;
  reads_by_status: Record<string, number>;
  /** Reads retried once after the keep-alive race (bench/traffic.ts); not errors. */
  reads_keepalive_retries: number;
  read_examples: string[];
  wait_rounds: number;
  waits: number;
  waits_right: number;
  timeout_waits: number;
  timeout_waits_right: number;
  wait_examples: string[];
  imports: number;
  imports_succeeded: number;
  imports_refused_budget: number;
  import_failures: string[];
  job_events_expected: number;
  activity_errors: string[];
}

export interface SoakFigures {
  minutes: number;
  duration_s: number;
  warmup_s: number;
  samples: SoakSample[];
  fds_quiet: { after_warmup: number | null; end: number | null };
  slopes_second_half: {
    rss_mb_per_min: number | null;
    heap_mb_per_min: number | null;
    rss_theil_sen_mb_per_min: number | null;
    heap_theil_sen_mb_per_min: number | null;
  };
  eld_ms: { p50_median: number | null; p99_max: number | null; max: number | null };
  counts: Counts;
  webhooks: { expected_events: number; received_events: number; deliveries: number; bad_signatures: number };
  logged_failures: number;
  logged_failure_examples: string[];
  unexpected_total: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** Least-squares slope of y over x; null for fewer than 3 points. */
export function slope(points: readonly (readonly [number, number])[]): number | null {
  if (points.length < 3) return null;
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? null : num / den;
}

/** Theil–Sen slope (the median of pairwise slopes): one GC outlier cannot tilt it. */
export function theilSen(points: readonly (readonly [number, number])[]): number | null {
  if (points.length < 3) return null;
  const s: number[] = [];
  for (let i = 0; i < points.length; i++)
    for (let j = i + 1; j < points.length; j++) {
      const dx = points[j]![0] - points[i]![0];
      if (dx !== 0) s.push((points[j]![1] - points[i]![1]) / dx);
    }
  if (s.length === 0) return null;
  s.sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Descriptors with nothing in flight: sampled until two readings in a row agree (connections take a moment to close). */
async function quietFds(gw: GatewayChild): Promise<number | null> {
  let last: number | null = -1;
  for (let i = 0; i < 20; i++) {
    await sleep(500);
    const s = await gw.sample(false);
    if (s.fds === last) return s.fds;
    last = s.fds;
  }
  return last;
}

export async function benchSoak(cfg: SoakConfig, log: (line: string) => void): Promise<BenchReport> {
  const totalMs = cfg.minutes * 60_000;
  const warmupMs = Math.max(cfg.warmup_min_s * 1000, totalMs * cfg.warmup_fraction);
  const media = await tinyMeetingFile();
  const mediaBytes = new Uint8Array(readFileSync(media));
  const receiver = await startReceiver();
  let gw: GatewayChild | null = null;
  const counts: Counts = {
    reads: 0,
    reads_unexpected: 0,
    reads_by_status: {},
    reads_keepalive_retries: 0,
    read_examples: [],
    wait_rounds: 0,
    waits: 0,
    waits_right: 0,
    timeout_waits: 0,
    timeout_waits_right: 0,
    wait_examples: [],
    imports: 0,
    imports_succeeded: 0,
    imports_refused_budget: 0,
    import_failures: [],
    job_events_expected: 0,
    activity_errors: [],
  };
  const samples: SoakSample[] = [];
  const fdsQuiet: SoakFigures['fds_quiet'] = { after_warmup: null, end: null };
  let figures: SoakFigures;
  let started = 0;
  try {
    gw = await startGatewayChild({ args: cfg.gateway_args });
    const g = gw;
    log(
      `soak: gateway pid ${g.pid}; seeding ${cfg.meetings} meetings, allowlisting the webhook receiver ${receiver.target} and restarting…`,
    );
    const store: Store = await seedStore(g, cfg.meetings, cfg.segments_per_meeting);
    await g.control('PATCH', '/control/settings', { local_webhook_targets: [receiver.target] });
    await g.control('POST', '/control/restart');
    for (let i = 0; i < 100 && (await httpCall({ port: g.apiPort, method: 'GET', path: '/health' })).status !== 200; i++) await sleep(100);
    const hook = await httpCall({
      port: g.apiPort,
      method: 'POST',
      path: '/v1/webhooks',
      token: store.token,
      body: { url: receiver.url, events: ['job.completed', 'job.failed'], delivery_mode: 'at-least-once' },
    });
    if (hook.status !== 201) throw new Error(`POST /v1/webhooks: ${hook.status} ${hook.text}`);
    const created = JSON.parse(hook.text) as { id: string; hmac_secret: string };
    receiver.setSecret(created.hmac_secret);
    await g.control('POST', `/control/webhooks/${created.id}/approval`, { state: 'allowed' });

    const failed = (what: string, err: unknown): void => {
      const line = `${what}: ${err instanceof Error ? err.message : String(err)}`;
      if (counts.activity_errors.length < 20) counts.activity_errors.push(line);
      else counts.activity_errors[19] = `… and more (last: ${line})`;
      log(`soak: ${line}`);
    };

    const reads = async (ms: number): Promise<void> => {
      const r: DriveResult = await drive({
        port: g.apiPort,
        token: store.token,
        connections: cfg.read_connections,
        warmupMs: 0,
        durationMs: ms,
        next: (rand) => mixOp(store, rand),
        ratePerS: cfg.read_rate_per_s,
        requestTimeoutMs: 60_000,
        seed: Math.floor(ms),
      });
      counts.reads += r.requests;
      counts.reads_unexpected += r.unexpected;
      counts.reads_keepalive_retries += r.keepalive_retries;
      for (const [k, v] of Object.entries(r.by_status)) counts.reads_by_status[k] = (counts.reads_by_status[k] ?? 0) + v;
      for (const e of r.unexpected_examples)
        if (counts.read_examples.length < 10) counts.read_examples.push(`${e.op} → ${e.status} ${e.body}`);
    };

    const every = async (periodS: number, until: number, what: string, action: () => Promise<void>): Promise<void> => {
      while (Date.now() < until) {
        const t = Date.now();
        try {
          await action();
        } catch (err) {
          failed(what, err);
        }
        await sleep(Math.min(until - Date.now(), periodS * 1000 - (Date.now() - t)));
      }
    };

    const waitsOnce = async (): Promise<void> => {
      // Waits that time out first, on a held job of their own (opened before the round so they overlap it).
      const { id: slow } = await g.control<{ id: string }>('POST', '/control/jobs', { kind: 'diarization', state: 'running', hold: true });
      const timeouts = Array.from({ length: cfg.timeout_waits }, () => openWait(g.apiPort, `/v1/jobs/${slow}/wait?timeout=1`, store.token));
      const r = await waitRound(g, store.token, { waits: cfg.waits, jobs: cfg.wait_jobs, open_concurrency: 50, phase_timeout_ms: 60_000 });
      counts.job_events_expected += cfg.wait_jobs;
      counts.wait_rounds += 1;
      for (const o of r.outcomes) {
        counts.waits += 1;
        const why = wrongness(o);
        if (why === null) counts.waits_right += 1;
        else if (counts.wait_examples.length < 10) counts.wait_examples.push(why);
      }
      for (const t of await Promise.all(timeouts.map((w) => w.done))) {
        counts.timeout_waits += 1;
        if (t.status === 200 && t.event === 'timeout') counts.timeout_waits_right += 1;
        else if (counts.wait_examples.length < 10)
          counts.wait_examples.push(
            `timeout wait: status ${t.status}, event ${t.event ?? 'none'}${t.error !== undefined ? `, ${t.error}` : ''}`,
          );
      }
      await g.control('POST', `/control/jobs/${slow}/finish`, { outcome: 'succeeded' });
      counts.job_events_expected += 1;
    };

    const importOnce = async (): Promise<void> => {
      counts.imports += 1;
      const res = await httpCall({
        port: g.apiPort,
        method: 'POST',
        path: `/v1/jobs/import?filename=soak.m4a&title=${encodeURIComponent(`Soak ${counts.imports}`)}`,
        token: store.token,
        bytes: mediaBytes,
        timeoutMs: 60_000,
      });
      if (res.status === 429) {
        counts.imports_refused_budget += 1;
        return;
      }
      if (res.status !== 202) {
        counts.import_failures.push(`POST /v1/jobs/import → ${res.status || res.error} ${res.text.slice(0, 200)}`);
        return;
      }
      const jobId = (JSON.parse(res.text) as { job_id: string }).job_id;
      const w = await openWait(g.apiPort, `/v1/jobs/${jobId}/wait?timeout=300`, store.token).done;
      counts.job_events_expected += 1;
      if (w.status === 200 && w.event === 'job.completed') counts.imports_succeeded += 1;
      else
        counts.import_failures.push(
          `import ${jobId}: wait → ${w.status}, ${w.event ?? 'no event'} ${JSON.stringify(w.data).slice(0, 300)}`,
        );
    };

    const sampler = async (until: number, phase: SoakSample['phase']): Promise<void> => {
      await every(cfg.sample_every_s, until, 'sample', async () => {
        const s: ProbeSample = await g.sample(true);
        samples.push({
          t_s: round((s.at_ms - started) / 1000, 2),
          phase,
          rss_mb: round(s.rss / 2 ** 20, 2),
          heap_used_mb: round(s.heap_used / 2 ** 20, 2),
          external_mb: round(s.external / 2 ** 20, 2),
          fds: s.fds,
          eld_p50_ms: s.eld_ms.p50,
          eld_p99_ms: s.eld_ms.p99,
          eld_max_ms: s.eld_ms.max,
        });
      });
    };

    const phase = async (name: SoakSample['phase'], ms: number): Promise<void> => {
      const until = Date.now() + ms;
      await Promise.all([
        reads(ms),
        every(cfg.waits_every_s, until, 'waits', waitsOnce),
        every(cfg.import_every_s, until, 'import', importOnce),
        sampler(until, name),
      ]);
    };

    // A first sample resets the event-loop histogram, so setup does not count.
    await g.sample(true);
    started = Date.now();
    log(`soak: ${cfg.minutes} min of mixed work (${fmt(warmupMs / 1000, 0)} s warm-up), a sample every ${cfg.sample_every_s} s`);
    await phase('warmup', warmupMs);
    fdsQuiet.after_warmup = await quietFds(g);
    log(`soak: warm-up done; ${fdsQuiet.after_warmup} descriptors with nothing in flight`);
    await phase('main', totalMs - warmupMs);
    // Let the last webhook deliveries arrive.
    for (let i = 0; i < 150 && receiver.events.size < counts.job_events_expected; i++) await sleep(200);
    fdsQuiet.end = await quietFds(g);
    const durationS = (Date.now() - started) / 1000;

    const failures = g.stderrLines().filter((l) => /failed:|Error|uncaught/i.test(l));
    const half = totalMs / 1000 / 2;
    const second = samples.filter((s) => s.phase === 'main' && s.t_s >= half);
    const pts = (k: 'rss_mb' | 'heap_used_mb'): [number, number][] => second.map((s) => [s.t_s / 60, s[k]]);
    const r2 = (v: number | null): number | null => (v === null ? null : round(v, 3));
    const main = samples.filter((s) => s.phase === 'main');
    const p50s = main.map((s) => s.eld_p50_ms).sort((a, b) => a - b);
    const unexpected =
      counts.reads_unexpected +
      (counts.waits - counts.waits_right) +
      (counts.timeout_waits - counts.timeout_waits_right) +
      counts.import_failures.length +
      counts.activity_errors.length +
      receiver.badSignatures +
      Math.max(0, counts.job_events_expected - receiver.events.size) +
      failures.length;
    figures = {
      minutes: cfg.minutes,
      duration_s: round(durationS, 1),
      warmup_s: round(warmupMs / 1000, 1),
      samples,
      fds_quiet: fdsQuiet,
      slopes_second_half: {
        rss_mb_per_min: r2(slope(pts('rss_mb'))),
        heap_mb_per_min: r2(slope(pts('heap_used_mb'))),
        rss_theil_sen_mb_per_min: r2(theilSen(pts('rss_mb'))),
        heap_theil_sen_mb_per_min: r2(theilSen(pts('heap_used_mb'))),
      },
      eld_ms: {
        p50_median: p50s.length === 0 ? null : p50s[p50s.length >> 1]!,
        p99_max: main.length === 0 ? null : Math.max(...main.map((s) => s.eld_p99_ms)),
        max: main.length === 0 ? null : Math.max(...main.map((s) => s.eld_max_ms)),
      },
      counts,
      webhooks: {
        expected_events: counts.job_events_expected,
        received_events: receiver.events.size,
        deliveries: receiver.deliveries,
        bad_signatures: receiver.badSignatures,
      },
      logged_failures: failures.length,
      logged_failure_examples: failures.slice(0, 5),
      unexpected_total: unexpected,
    };
    log(
      `soak: done in ${fmt(durationS, 0)} s: ${counts.reads} reads (${counts.reads_unexpected} unexpected), ${counts.waits_right}/${counts.waits} waits + ${counts.timeout_waits_right}/${counts.timeout_waits} timeouts right, ` +
        `${counts.imports_succeeded}/${counts.imports} imports, webhooks ${receiver.events.size}/${counts.job_events_expected}; ` +
        `slopes RSS ${fmt(figures.slopes_second_half.rss_mb_per_min, 2)} heap ${fmt(figures.slopes_second_half.heap_mb_per_min, 2)} MiB/min; fds ${fdsQuiet.after_warmup} → ${fdsQuiet.end}`,
    );
  } finally {
    await gw?.stop();
    await receiver.close();
  }
  const fdGrowth = fdsQuiet.after_warmup === null || fdsQuiet.end === null ? null : fdsQuiet.end - fdsQuiet.after_warmup;
  const limits = slopeLimits(cfg);
  const targets: Record<string, Target> = {
    unexpected_errors: target(figures.unexpected_total, { max: 0 }),
    waits_resolved_right: target(counts.waits + counts.timeout_waits - counts.waits_right - counts.timeout_waits_right, { max: 0 }),
    rss_slope_mb_per_min: target(figures.slopes_second_half.rss_mb_per_min, { max: limits.rss }),
    heap_slope_mb_per_min: target(figures.slopes_second_half.heap_mb_per_min, { max: limits.heap }),
    fd_growth_after_warmup: target(fdGrowth, { max: cfg.fd_slack }),
  };
  return {
    generated_at: new Date().toISOString(),
    machine: machine(),
    config: { ...cfg, gateway: 'server/main.ts in a child process, bench/probe.ts preloaded, --expose-gc; every sample after a full GC' },
    benchmarks: { soak: figures },
    ratios: {
      rss_end_vs_after_warmup: ratioOfSamples(figures.samples, 'rss_mb'),
      heap_end_vs_after_warmup: ratioOfSamples(figures.samples, 'heap_used_mb'),
    },
    baselines: {
      rss_end_vs_after_warmup:
        'mean post-GC RSS of the first three samples after the warm-up (same process); the figure is the mean of the last three',
      heap_end_vs_after_warmup:
        'mean post-GC heap used of the first three samples after the warm-up; the figure is the mean of the last three',
    },
    targets,
  };
}

/** The slope limits (MiB/min) of a run: the trend threshold plus the one-step allowance spread over the second half. */
export function slopeLimits(cfg: SoakConfig): { rss: number; heap: number } {
  const halfMin = cfg.minutes / 2;
  return {
    rss: round(cfg.max_rss_slope_mb_per_min + cfg.rss_step_allowance_mb / halfMin, 2),
    heap: round(cfg.max_heap_slope_mb_per_min + cfg.heap_step_allowance_mb / halfMin, 2),
  };
}

function ratioOfSamples(samples: readonly SoakSample[], k: 'rss_mb' | 'heap_used_mb'): number | null {
  const main = samples.filter((s) => s.phase === 'main');
  if (main.length < 6) return null;
  const mean = (xs: readonly SoakSample[]): number => xs.reduce((a, s) => a + s[k], 0) / xs.length;
  return round(mean(main.slice(-3)) / mean(main.slice(0, 3)), 3);
}

export const run = (opts: BenchRunOptions): Promise<BenchReport> => benchSoak(opts.tiny ? TINY : FULL, opts.log);

function figuresOf(report: BenchReport): SoakFigures | undefined {
  return report.benchmarks['soak'] as SoakFigures | undefined;
}

export function table(report: BenchReport): string {
  const f = figuresOf(report);
  if (f === undefined) return 'no figures';
  const c = f.counts;
  const rows = [
    ['figure', 'value'],
    ['duration (warm-up)', `${fmt(f.duration_s, 0)} s (${fmt(f.warmup_s, 0)} s)`],
    ['reads (unexpected)', `${c.reads} (${c.reads_unexpected}) ${JSON.stringify(c.reads_by_status)}`],
    ['waits right / all', `${c.waits_right} / ${c.waits} in ${c.wait_rounds} rounds`],
    ['timeout waits right / all', `${c.timeout_waits_right} / ${c.timeout_waits}`],
    ['imports succeeded / all (429)', `${c.imports_succeeded} / ${c.imports} (${c.imports_refused_budget})`],
    [
      'webhook events received / expected',
      `${f.webhooks.received_events} / ${f.webhooks.expected_events} (${f.webhooks.deliveries} deliveries, ${f.webhooks.bad_signatures} bad signatures)`,
    ],
    [
      'RSS slope, 2nd half (MiB/min)',
      `${fmt(f.slopes_second_half.rss_mb_per_min, 3)} (Theil–Sen ${fmt(f.slopes_second_half.rss_theil_sen_mb_per_min, 3)})`,
    ],
    [
      'heap slope, 2nd half (MiB/min)',
      `${fmt(f.slopes_second_half.heap_mb_per_min, 3)} (Theil–Sen ${fmt(f.slopes_second_half.heap_theil_sen_mb_per_min, 3)})`,
    ],
    ['descriptors, quiet: after warm-up → end', `${f.fds_quiet.after_warmup} → ${f.fds_quiet.end}`],
    [
      'event-loop delay: median p50 / max p99 / max',
      `${fmt(f.eld_ms.p50_median, 2)} / ${fmt(f.eld_ms.p99_max, 1)} / ${fmt(f.eld_ms.max, 1)} ms`,
    ],
    ['unexpected, all kinds', String(f.unexpected_total)],
  ];
  const lines = [formatRows(rows), ''];
  for (const e of [...c.read_examples, ...c.wait_examples, ...c.import_failures, ...c.activity_errors, ...f.logged_failure_examples])
    lines.push(`! ${e}`);
  for (const [name, value] of Object.entries(report.ratios)) lines.push(`${name}: ${fmt(value, 3)}`);
  for (const [name, t] of Object.entries(report.targets))
    lines.push(`target ${name} ${t.target}: ${fmt(t.value, 3)} → ${t.met ? 'met' : 'NOT met'}`);
  return lines.join('\n');
}

export function markdown(report: BenchReport): string {
  const f = figuresOf(report);
  if (f === undefined) return 'no figures';
  const c = f.counts;
  const first = f.samples.find((s) => s.phase === 'main');
  const last = f.samples[f.samples.length - 1];
  const out = [
    `${f.minutes} minutes of mixed work (${fmt(f.warmup_s, 0)} s warm-up), ${f.samples.length} samples of the gateway process, each after a full GC.`,
    '',
    '| work | count | right | notes |',
    '|---|---:|---:|---|',
    `| reads (request mix, paced) | ${c.reads} | ${c.reads - c.reads_unexpected} | ${Object.entries(c.reads_by_status)
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ')}; ${c.reads_keepalive_retries} retried after the keep-alive race |`,
    `| SSE waits on held jobs | ${c.waits} | ${c.waits_right} | ${c.wait_rounds} rounds |`,
    `| SSE waits ending in timeout | ${c.timeout_waits} | ${c.timeout_waits_right} | timeout=1 |`,
    `| imports of a synthetic meeting (m4a) | ${c.imports} | ${c.imports_succeeded} | ${c.imports_refused_budget} refused with 429 import_budget_full |`,
    `| webhook job events (signed) | ${f.webhooks.expected_events} | ${f.webhooks.received_events} | ${f.webhooks.deliveries} deliveries, ${f.webhooks.bad_signatures} bad signatures |`,
    '',
    '| gateway process | after warm-up | end | second-half slope (MiB/min) |',
    '|---|---:|---:|---:|',
    `| RSS MiB (post-GC) | ${fmt(first?.rss_mb, 1)} | ${fmt(last?.rss_mb, 1)} | ${fmt(f.slopes_second_half.rss_mb_per_min, 3)} (Theil–Sen ${fmt(f.slopes_second_half.rss_theil_sen_mb_per_min, 3)}) |`,
    `| heap used MiB (post-GC) | ${fmt(first?.heap_used_mb, 1)} | ${fmt(last?.heap_used_mb, 1)} | ${fmt(f.slopes_second_half.heap_mb_per_min, 3)} (Theil–Sen ${fmt(f.slopes_second_half.heap_theil_sen_mb_per_min, 3)}) |`,
    `| open descriptors, nothing in flight | ${f.fds_quiet.after_warmup ?? '–'} | ${f.fds_quiet.end ?? '–'} | |`,
    `| event-loop delay ms: median of p50s / worst p99 / max | ${fmt(f.eld_ms.p50_median, 2)} | ${fmt(f.eld_ms.p99_max, 1)} | max ${fmt(f.eld_ms.max, 1)} |`,
  ];
  for (const e of [...c.read_examples, ...c.wait_examples, ...c.import_failures, ...c.activity_errors, ...f.logged_failure_examples])
    out.push(`- unexpected: ${e.replace(/\|/g, '\\|')}`);
  return out.join('\n');
}

export function charts(report: BenchReport): Chart[] {
  const f = figuresOf(report);
  if (f === undefined) return [];
  const m = (s: SoakSample): number => s.t_s / 60;
  const markers = [{ x: f.warmup_s / 60, label: 'warm-up ends' }];
  return [
    {
      name: 'memory',
      title: `Gateway memory over the ${f.minutes}-minute soak (post-GC)`,
      svg: lineChart({
        title: `Gateway memory over ${f.minutes} minutes (post-GC)`,
        xLabel: 'minutes',
        yLabel: 'MiB',
        series: [
          { name: 'RSS', points: f.samples.map((s) => [m(s), s.rss_mb]) },
          { name: 'heap used', points: f.samples.map((s) => [m(s), s.heap_used_mb]) },
          { name: 'external', points: f.samples.map((s) => [m(s), s.external_mb]) },
        ],
        markers,
      }),
    },
    {
      name: 'fds',
      title: `Gateway open descriptors over the ${f.minutes}-minute soak (with work in flight)`,
      svg: lineChart({
        title: `Open descriptors over ${f.minutes} minutes`,
        xLabel: 'minutes',
        yLabel: 'descriptors',
        series: [{ name: 'fds', points: f.samples.map((s) => [m(s), s.fds ?? Number.NaN]) }],
        markers,
      }),
    },
    {
      name: 'event-loop-delay',
      title: `Gateway event-loop delay over the ${f.minutes}-minute soak`,
      svg: lineChart({
        title: `Event-loop delay over ${f.minutes} minutes (per sample interval)`,
        xLabel: 'minutes',
        yLabel: 'ms',
        series: [
          { name: 'p50', points: f.samples.map((s) => [m(s), s.eld_p50_ms]) },
          { name: 'p99', points: f.samples.map((s) => [m(s), s.eld_p99_ms]) },
          { name: 'max', points: f.samples.map((s) => [m(s), s.eld_max_ms]) },
        ],
        markers,
      }),
    },
  ];
}

// ── node bench/soak.ts --minutes N ─────────────────────────────────────────

export function soakReportFile(outDir: string, minutes: number): string {
  return join(outDir, `bench-soak-${String(minutes).replace('.', '_')}min.json`);
}

async function cli(argv: readonly string[]): Promise<void> {
  const flags = readFlags(argv, { minutes: { type: 'string' }, 'out-dir': { type: 'string' } }, '--minutes N [--out-dir DIR]');
  const minutes = flags.minutes === undefined ? 20 : Number(flags.minutes);
  const outDir = resolve(flags['out-dir'] ?? join(REPO, 'reports'));
  if (!Number.isFinite(minutes) || minutes <= 0) throw new Error('--minutes needs a positive number');
  const report = await benchSoak(soakConfig(minutes), (line) => process.stderr.write(`${line}\n`));
  mkdirSync(outDir, { recursive: true });
  const file = soakReportFile(outDir, minutes);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(table(report));
  console.log(`→ ${file} (npm run bench includes it in reports/bench.md)`);
  if (Object.values(report.targets).some((t) => !t.met)) process.exitCode = 1;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  cli(process.argv.slice(2)).catch((err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exit(1);
  });
}
