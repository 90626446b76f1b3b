/**
 * SSE wait benchmark: 10,000 concurrent GET /v1/jobs/{id}/wait streams held
 * open on the real gateway (server/main.ts in a child process), then all
 * released at once, and every stream checked.
 *
 *   1. Jobs held through the Control API (CONTROL.md, Jobs: "hold": true keeps
 *      a running job running until POST /control/jobs/{id}/finish). The waits
 *      are spread round-robin over `jobs` jobs.
 *   2. The waits are opened `open_concurrency` at a time, each on its own
 *      connection; a wait counts as held once its ": waiting" comment arrived.
 *   3. Gateway memory after a full GC before the first wait and while all are
 *      held (bench/probe.ts): bytes per held wait, heap and RSS; descriptors.
 *   4. Release: every job finished at once, alternately succeeded and failed.
 *      From just before the first finish call to the end of each stream (seen
 *      by this process): p50, p99, max. The client's own event loop, handling
 *      10,000 stream ends, is part of that delay.
 *   5. Every wait must have answered 200 and carried exactly its job's
 *      terminal event: job.completed for a succeeded job, job.failed for a
 *      failed one, with the job's id and state in the data.
 *
 * Descriptors: each side holds one socket per wait; the machine allows 20,000
 * per process, and the gateway's connection cap (server/kernel/http/connection-limits.ts,
 * 16,000 by default) leaves room for 10,000.
 */
import { lineChart, barChart, histogramLabels, shares } from './charts.ts';
import { startGatewayChild, type GatewayChild } from './gateway-child.ts';
import {
  fmt,
  formatRows,
  latencyStats,
  machine,
  round,
  target,
  type BenchReport,
  type BenchRunOptions,
  type Chart,
  type LatencyStats,
} from './lib.ts';
import type { ProbeSample } from './probe.ts';
import { histogram, openWait, type Histogram, type OpenWait, type WaitOutcome } from './traffic.ts';

export interface WaitsConfig {
  waits: number;
  jobs: number;
  open_concurrency: number;
  /** Give up (and fail) when the waits are not all held, or not all resolved, within this. */
  phase_timeout_ms: number;
  gateway_args: string[];
}

export const FULL: WaitsConfig = { waits: 10_000, jobs: 10, open_concurrency: 250, phase_timeout_ms: 180_000, gateway_args: [] };
export const TINY: WaitsConfig = { waits: 200, jobs: 4, open_concurrency: 50, phase_timeout_ms: 30_000, gateway_args: [] };
/** The CI check runs the full 10,000 once. */
export const CHECK: WaitsConfig = { ...FULL, phase_timeout_ms: 90_000 };

interface MemoryPoint {
  rss_mb: number;
  heap_used_mb: number;
  external_mb: number;
  fds: number | null;
}

export interface WaitsFigures {
  waits: number;
  jobs: number;
  held: number;
  open_s: number;
  memory: { before: MemoryPoint; held: MemoryPoint; after: MemoryPoint };
  bytes_per_wait: { heap_used: number; rss: number; external: number };
  fds_per_wait: number | null;
  release_to_closed_ms: LatencyStats;
  release_histogram: Histogram;
  /** Milliseconds from release at which 10%, 20%, … 100% of the streams had closed (chart). */
  closed_curve_ms: number[];
  resolved_right: number;
  wrong: number;
  wrong_by_kind: Record<string, number>;
  wrong_examples: string[];
  logged_failures: number;
}

function point(s: ProbeSample): MemoryPoint {
  return {
    rss_mb: round(s.rss / 2 ** 20, 1),
    heap_used_mb: round(s.heap_used / 2 ** 20, 1),
    external_mb: round(s.external / 2 ** 20, 1),
    fds: s.fds,
  };
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
    }),
  ]);
}

/** Opens and releases the waits on a running gateway; the soak reuses it with small numbers. */
export async function waitRound(
  gw: GatewayChild,
  token: string,
  cfg: Pick<WaitsConfig, 'waits' | 'jobs' | 'open_concurrency' | 'phase_timeout_ms'>,
  hooks: { whileHeld?: () => Promise<void> } = {},
): Promise<{ outcomes: { job: string; expect: string; outcome: WaitOutcome }[]; releasedAt: number; openS: number }> {
  const jobs: { id: string; outcome: 'succeeded' | 'failed' }[] = [];
  for (let j = 0; j < cfg.jobs; j++) {
    const { id } = await gw.control<{ id: string }>('POST', '/control/jobs', { kind: 'diarization', state: 'running', hold: true });
    jobs.push({ id, outcome: j % 2 === 0 ? 'succeeded' : 'failed' });
  }
  const opened: { job: string; expect: string; w: OpenWait }[] = [];
  const openStarted = performance.now();
  try {
    let next = 0;
    const opener = async (): Promise<void> => {
      while (next < cfg.waits) {
        const i = next++;
        const job = jobs[i % jobs.length]!;
        const w = openWait(gw.apiPort, `/v1/jobs/${job.id}/wait?timeout=3600`, token);
        opened.push({ job: job.id, expect: job.outcome === 'succeeded' ? 'job.completed' : 'job.failed', w });
        await w.held;
      }
    };
    await withTimeout(
      Promise.all(Array.from({ length: Math.min(cfg.open_concurrency, cfg.waits) }, opener)),
      cfg.phase_timeout_ms,
      `holding ${cfg.waits} waits`,
    );
    const openS = (performance.now() - openStarted) / 1000;
    await hooks.whileHeld?.();
    const releasedAt = performance.now();
    await Promise.all(jobs.map((j) => gw.control('POST', `/control/jobs/${j.id}/finish`, { outcome: j.outcome })));
    const outcomes = await withTimeout(
      Promise.all(opened.map(async (o) => ({ job: o.job, expect: o.expect, outcome: await o.w.done }))),
      cfg.phase_timeout_ms,
      `resolving ${cfg.waits} waits`,
    );
    return { outcomes, releasedAt, openS };
  } catch (err) {
    for (const o of opened) o.w.abort();
    throw err;
  }
}

/** Why a wait outcome is wrong, or null when it carried its job's terminal event. */
export function wrongness(o: { job: string; expect: string; outcome: WaitOutcome }): string | null {
  if (o.outcome.error !== undefined) return `transport: ${o.outcome.error}`;
  if (o.outcome.status !== 200) return `status ${o.outcome.status}`;
  if (o.outcome.event !== o.expect) return `event ${o.outcome.event ?? 'none'} (expected ${o.expect})`;
  const data = o.outcome.data as { id?: unknown; state?: unknown } | null;
  if (data?.id !== o.job) return 'data names another job';
  if (data.state !== (o.expect === 'job.completed' ? 'succeeded' : 'failed')) return `data.state ${String(data.state)}`;
  return null;
}

export async function benchWaits(cfg: WaitsConfig, log: (line: string) => void): Promise<BenchReport> {
  let gw: GatewayChild | null = null;
  let figures: WaitsFigures;
  try {
    gw = await startGatewayChild({ args: cfg.gateway_args });
    await gw.control('POST', '/control/reset');
    const { token } = await gw.control<{ token: string }>('POST', '/control/tokens', { scopes: ['read'], name: 'bench-waits' });
    const g = gw;
    // One wait first, so the route's code is loaded and compiled before the baseline sample.
    await waitRound(g, token, { waits: 1, jobs: 1, open_concurrency: 1, phase_timeout_ms: 10_000 });
    const before = await g.sample(true);
    let held: ProbeSample | null = null;
    log(`sse-waits: opening ${cfg.waits} waits over ${cfg.jobs} held jobs, ${cfg.open_concurrency} at a time…`);
    const round1 = await waitRound(g, token, cfg, {
      whileHeld: async () => {
        held = await g.sample(true);
        log(
          `sse-waits: all held; gateway RSS ${fmt(held.rss / 2 ** 20, 1)} MiB, heap ${fmt(held.heap_used / 2 ** 20, 1)} MiB, ${held.fds} descriptors; releasing`,
        );
      },
    });
    const after = await g.sample(true);
    const delays = round1.outcomes.map((o) => o.outcome.closed_at - round1.releasedAt);
    const sorted = [...delays].sort((a, b) => a - b);
    const wrong: Record<string, number> = {};
    const examples: string[] = [];
    let right = 0;
    for (const o of round1.outcomes) {
      const why = wrongness(o);
      if (why === null) right += 1;
      else {
        const kind = why.split(':')[0]!.split(' ')[0]!;
        wrong[kind] = (wrong[kind] ?? 0) + 1;
        if (examples.length < 10) examples.push(`${o.job}: ${why}`);
      }
    }
    const h = held as ProbeSample | null;
    if (h === null) throw new Error('the held sample was not taken');
    const per = (k: 'heap_used' | 'rss' | 'external'): number => round((h[k] - before[k]) / cfg.waits, 0);
    figures = {
      waits: cfg.waits,
      jobs: cfg.jobs,
      held: round1.outcomes.length,
      open_s: round(round1.openS, 2),
      memory: { before: point(before), held: point(h), after: point(after) },
      bytes_per_wait: { heap_used: per('heap_used'), rss: per('rss'), external: per('external') },
      fds_per_wait: h.fds === null || before.fds === null ? null : round((h.fds - before.fds) / cfg.waits, 3),
      release_to_closed_ms: latencyStats(delays),
      release_histogram: histogram(delays),
      closed_curve_ms: Array.from({ length: 10 }, (_, i) =>
        round(sorted[Math.min(sorted.length - 1, Math.ceil(((i + 1) / 10) * sorted.length) - 1)] ?? Number.NaN, 1),
      ),
      resolved_right: right,
      wrong: round1.outcomes.length - right,
      wrong_by_kind: wrong,
      wrong_examples: examples,
      logged_failures: g.stderrLines().filter((l) => /failed:|Error|uncaught/i.test(l)).length,
    };
    log(
      `sse-waits: ${right} of ${cfg.waits} resolved with the right event; release → closed p50 ${fmt(figures.release_to_closed_ms.p50, 0)} ms, ` +
        `p99 ${fmt(figures.release_to_closed_ms.p99, 0)} ms, max ${fmt(figures.release_to_closed_ms.max, 0)} ms; ${fmt(figures.bytes_per_wait.heap_used, 0)} B heap, ${fmt(figures.bytes_per_wait.rss, 0)} B RSS per wait`,
    );
  } finally {
    await gw?.stop();
  }
  return {
    generated_at: new Date().toISOString(),
    machine: machine(),
    config: {
      ...cfg,
      client: 'the bench process: one node:http request per wait (agent: false), so one connection each',
      gateway: 'server/main.ts in a child process, bench/probe.ts preloaded, --expose-gc',
    },
    benchmarks: { waits: figures },
    ratios: {
      rss_held_vs_before: round(figures.memory.held.rss_mb / figures.memory.before.rss_mb, 3),
    },
    baselines: { rss_held_vs_before: 'gateway RSS after a full GC before the first wait (same process, same run)' },
    targets: {
      waits_resolved_right: target(figures.resolved_right, { min: cfg.waits }),
      wrong_or_unresolved: target(figures.wrong, { max: 0 }),
      gateway_logged_failures: target(figures.logged_failures, { max: 0 }),
    },
  };
}

export const run = (opts: BenchRunOptions): Promise<BenchReport> => benchWaits(opts.tiny ? TINY : FULL, opts.log);

function figuresOf(report: BenchReport): WaitsFigures | undefined {
  return report.benchmarks['waits'] as WaitsFigures | undefined;
}

export function table(report: BenchReport): string {
  const f = figuresOf(report);
  if (f === undefined) return 'no figures';
  const rows = [
    ['figure', 'value'],
    ['waits held (over jobs)', `${f.held} (${f.jobs})`],
    ['time to open and hold all', `${fmt(f.open_s, 2)} s`],
    ['resolved with the right event', String(f.resolved_right)],
    ['wrong or unresolved', `${f.wrong} ${JSON.stringify(f.wrong_by_kind)}`],
    ['heap used per held wait', `${fmt(f.bytes_per_wait.heap_used, 0)} B`],
    ['RSS per held wait', `${fmt(f.bytes_per_wait.rss, 0)} B`],
    [
      'RSS before / held / after (MiB)',
      `${fmt(f.memory.before.rss_mb, 1)} / ${fmt(f.memory.held.rss_mb, 1)} / ${fmt(f.memory.after.rss_mb, 1)}`,
    ],
    [
      'heap used before / held / after (MiB)',
      `${fmt(f.memory.before.heap_used_mb, 1)} / ${fmt(f.memory.held.heap_used_mb, 1)} / ${fmt(f.memory.after.heap_used_mb, 1)}`,
    ],
    ['descriptors before / held / after', `${f.memory.before.fds} / ${f.memory.held.fds} / ${f.memory.after.fds}`],
    [
      'release → closed p50 / p99 / max',
      `${fmt(f.release_to_closed_ms.p50, 0)} / ${fmt(f.release_to_closed_ms.p99, 0)} / ${fmt(f.release_to_closed_ms.max, 0)} ms`,
    ],
  ];
  const lines = [formatRows(rows), ''];
  for (const [name, value] of Object.entries(report.ratios)) lines.push(`${name}: ${fmt(value, 3)}`);
  for (const [name, t] of Object.entries(report.targets))
    lines.push(`target ${name} ${t.target}: ${fmt(t.value, 0)} → ${t.met ? 'met' : 'NOT met'}`);
  return lines.join('\n');
}

export function markdown(report: BenchReport): string {
  const f = figuresOf(report);
  if (f === undefined) return 'no figures';
  const out = [
    `${f.waits} concurrent GET /v1/jobs/{id}/wait streams over ${f.jobs} held jobs, each on its own connection, then every job finished at once (half succeeded, half failed).`,
    '',
    '| figure | value |',
    '|---|---:|',
    `| waits held | ${f.held} (all open in ${fmt(f.open_s, 2)} s) |`,
    `| resolved with their job's terminal event | ${f.resolved_right} |`,
    `| wrong or unresolved | ${f.wrong}${f.wrong > 0 ? ` ${JSON.stringify(f.wrong_by_kind)}` : ''} |`,
    `| heap used per held wait (post-GC) | ${fmt(f.bytes_per_wait.heap_used, 0)} B |`,
    `| RSS per held wait (post-GC) | ${fmt(f.bytes_per_wait.rss, 0)} B |`,
    `| external memory per held wait | ${fmt(f.bytes_per_wait.external, 0)} B |`,
    `| descriptors per held wait | ${fmt(f.fds_per_wait, 3)} |`,
    '',
    '| gateway process (post-GC) | before | all held | after release |',
    '|---|---:|---:|---:|',
    `| RSS MiB | ${fmt(f.memory.before.rss_mb, 1)} | ${fmt(f.memory.held.rss_mb, 1)} | ${fmt(f.memory.after.rss_mb, 1)} |`,
    `| heap used MiB | ${fmt(f.memory.before.heap_used_mb, 1)} | ${fmt(f.memory.held.heap_used_mb, 1)} | ${fmt(f.memory.after.heap_used_mb, 1)} |`,
    `| open descriptors | ${f.memory.before.fds} | ${f.memory.held.fds} | ${f.memory.after.fds} |`,
    '',
    '| release → stream closed | p50 | p90 | p99 | max |',
    '|---|---:|---:|---:|---:|',
    `| ms (seen by the client) | ${fmt(f.release_to_closed_ms.p50, 0)} | ${fmt(f.release_to_closed_ms.p90, 0)} | ${fmt(f.release_to_closed_ms.p99, 0)} | ${fmt(f.release_to_closed_ms.max, 0)} |`,
  ];
  for (const e of f.wrong_examples) out.push(`- wrong: ${e}`);
  return out.join('\n');
}

export function charts(report: BenchReport): Chart[] {
  const f = figuresOf(report);
  if (f === undefined) return [];
  const labels = histogramLabels(f.release_histogram.edges_ms);
  const used = f.release_histogram.counts.map((c) => c > 0);
  const lo = Math.max(0, used.indexOf(true));
  const hi = Math.max(lo, used.lastIndexOf(true));
  return [
    {
      name: 'release-to-closed',
      title: `Share of the ${f.waits} wait streams closed, by ms after the release`,
      svg: lineChart({
        title: `${f.waits} waits: streams closed after the release`,
        xLabel: 'ms after the release',
        yLabel: '% of streams closed',
        series: [{ name: 'closed', points: [[0, 0], ...f.closed_curve_ms.map((ms, i): [number, number] => [ms, (i + 1) * 10])] }],
      }),
    },
    {
      name: 'release-histogram',
      title: 'Release → closed, distribution',
      svg: barChart({
        title: `${f.waits} waits: release → closed distribution`,
        yLabel: '% of streams',
        categories: labels.slice(lo, hi + 1),
        series: [{ name: 'streams', values: shares(f.release_histogram.counts).slice(lo, hi + 1) }],
      }),
    },
  ];
}
