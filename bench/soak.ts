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
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startGatewayChild, httpCall, type GatewayChild } from './gateway-child.ts';
import { FlagError, fmt, machine, readFlags, round, runCli, target, type BenchReport, type BenchRunOptions, type Target } from './lib.ts';
import type { ProbeSample } from './probe.ts';
import { waitRound, wrongness } from './sse-waits.ts';
import { drive, mixOp, openWait, seedStore, type DriveResult, type Store } from './traffic.ts';
import { FULL, TINY, soakConfig, type SoakConfig } from './soak-config.ts';
import { startReceiver, tinyMeetingFile } from './soak-fixtures.ts';
import { slope, slopeLimits, theilSen } from './soak-stats.ts';
import type { Counts, SoakFigures, SoakSample } from './soak-types.ts';
import { table } from './soak-report.ts';

export { charts, markdown, table } from './soak-report.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));

// ── The soak ───────────────────────────────────────────────────────────────

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, Math.max(0, ms)));

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

function ratioOfSamples(samples: readonly SoakSample[], k: 'rss_mb' | 'heap_used_mb'): number | null {
  const main = samples.filter((s) => s.phase === 'main');
  if (main.length < 6) return null;
  const mean = (xs: readonly SoakSample[]): number => xs.reduce((a, s) => a + s[k], 0) / xs.length;
  return round(mean(main.slice(-3)) / mean(main.slice(0, 3)), 3);
}

export const run = (opts: BenchRunOptions): Promise<BenchReport> => benchSoak(opts.tiny ? TINY : FULL, opts.log);

// ── node bench/soak.ts --minutes N ─────────────────────────────────────────

function soakReportFile(outDir: string, minutes: number): string {
  return join(outDir, `bench-soak-${String(minutes).replace('.', '_')}min.json`);
}

async function cli(argv: readonly string[]): Promise<number> {
  const flags = readFlags(argv, { minutes: { type: 'string' }, 'out-dir': { type: 'string' } }, '--minutes N [--out-dir DIR]');
  const minutes = flags.minutes === undefined ? 20 : Number(flags.minutes);
  const outDir = resolve(flags['out-dir'] ?? join(REPO, 'reports'));
  if (!Number.isFinite(minutes) || minutes <= 0) throw new FlagError('--minutes needs a positive number');
  const report = await benchSoak(soakConfig(minutes), (line) => process.stderr.write(`${line}\n`));
  mkdirSync(outDir, { recursive: true });
  const file = soakReportFile(outDir, minutes);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(table(report));
  console.log(`→ ${file} (npm run bench includes it in reports/bench.md)`);
  return Object.values(report.targets).some((t) => !t.met) ? 1 : 0;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await runCli(() => cli(process.argv.slice(2)));
}
