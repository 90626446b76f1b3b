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
import { emptyCounts, sleep, soakPhase, type SoakRun } from './soak-activities.ts';
import { seedStore, type Store } from './traffic.ts';
import { FULL, TINY, soakConfig, type SoakConfig } from './soak-config.ts';
import { startReceiver, tinyMeetingFile, type Receiver } from './soak-fixtures.ts';
import { slope, slopeLimits, theilSen } from './soak-stats.ts';
import type { SoakFigures, SoakSample } from './soak-types.ts';
import { table } from './soak-report.ts';

export { charts, markdown, table } from './soak-report.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));

// ── The soak ───────────────────────────────────────────────────────────────

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

/** Seeds the gateway, allowlists the receiver (a restart applies it) and subscribes it to job events. */
async function prepareGateway(g: GatewayChild, cfg: SoakConfig, receiver: Receiver, log: (line: string) => void): Promise<Store> {
  log(`soak: gateway pid ${g.pid}; seeding ${cfg.meetings} meetings, allowlisting the webhook receiver ${receiver.target} and restarting…`);
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
  return store;
}

/** The figures of a finished run: slopes of the second half, event-loop delay, and every unexpected outcome counted. */
function figuresOf(run: SoakRun, receiver: Receiver, fdsQuiet: SoakFigures['fds_quiet'], warmupMs: number): SoakFigures {
  const { cfg, counts, samples } = run;
  const durationS = (Date.now() - run.started) / 1000;
  const failures = run.g.stderrLines().filter((l) => /failed:|Error|uncaught/i.test(l));
  const half = (cfg.minutes * 60) / 2;
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
  return {
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
}

function reportOf(cfg: SoakConfig, figures: SoakFigures): BenchReport {
  const { counts, fds_quiet: fdsQuiet } = figures;
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

export async function benchSoak(cfg: SoakConfig, log: (line: string) => void): Promise<BenchReport> {
  const totalMs = cfg.minutes * 60_000;
  const warmupMs = Math.max(cfg.warmup_min_s * 1000, totalMs * cfg.warmup_fraction);
  const mediaBytes = new Uint8Array(readFileSync(await tinyMeetingFile()));
  const receiver = await startReceiver();
  let gw: GatewayChild | null = null;
  const fdsQuiet: SoakFigures['fds_quiet'] = { after_warmup: null, end: null };
  let figures: SoakFigures;
  try {
    gw = await startGatewayChild({ args: cfg.gateway_args });
    const store = await prepareGateway(gw, cfg, receiver, log);
    const run: SoakRun = { g: gw, cfg, store, mediaBytes, counts: emptyCounts(), samples: [], started: 0, log };
    // A first sample resets the event-loop histogram, so setup does not count.
    await gw.sample(true);
    run.started = Date.now();
    log(`soak: ${cfg.minutes} min of mixed work (${fmt(warmupMs / 1000, 0)} s warm-up), a sample every ${cfg.sample_every_s} s`);
    await soakPhase(run, 'warmup', warmupMs);
    fdsQuiet.after_warmup = await quietFds(gw);
    log(`soak: warm-up done; ${fdsQuiet.after_warmup} descriptors with nothing in flight`);
    await soakPhase(run, 'main', totalMs - warmupMs);
    // Let the last webhook deliveries arrive.
    for (let i = 0; i < 150 && receiver.events.size < run.counts.job_events_expected; i++) await sleep(200);
    fdsQuiet.end = await quietFds(gw);
    figures = figuresOf(run, receiver, fdsQuiet, warmupMs);
    const { counts } = run;
    log(
      `soak: done in ${fmt(figures.duration_s, 0)} s: ${counts.reads} reads (${counts.reads_unexpected} unexpected), ${counts.waits_right}/${counts.waits} waits + ${counts.timeout_waits_right}/${counts.timeout_waits} timeouts right, ` +
        `${counts.imports_succeeded}/${counts.imports} imports, webhooks ${receiver.events.size}/${counts.job_events_expected}; ` +
        `slopes RSS ${fmt(figures.slopes_second_half.rss_mb_per_min, 2)} heap ${fmt(figures.slopes_second_half.heap_mb_per_min, 2)} MiB/min; fds ${fdsQuiet.after_warmup} → ${fdsQuiet.end}`,
    );
  } finally {
    await gw?.stop();
    await receiver.close();
  }
  return reportOf(cfg, figures);
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
