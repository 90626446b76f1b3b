/**
 * Load benchmark: 1,000 concurrent keep-alive connections of mixed API
 * traffic (bench/traffic.ts: whoami, list meetings, get meeting, transcript,
 * search, config reads, job list, health, and 8% renames) against the real
 * gateway (server/main.ts in a child process, bench/gateway-child.ts) over a
 * store seeded through the Control API.
 *
 * Baselines, in the same run, with the same connections and the same request
 * mix (paths, methods, bodies, the Authorization header): a bare node:http
 * server and a bare Express 5 app that parses the JSON body, both answering
 * every request with a small JSON object (bench/servers/bare-*.ts). Rounds
 * are interleaved (every server once per round); the best round is reported.
 *
 * The load generator is this process (one event loop); the servers are child
 * processes. On a 2-core machine the generator and the server each have about
 * one core, so the baseline figures are partly bounded by the generator.
 *
 * Targets (reported, never asserted here; bench/load.check.ts asserts the
 * outcomes): no answer the spec does not call for (no 5xx, no reset, every
 * request of this mix succeeds), every connection opened, no failure logged
 * by the gateway.
 */
import { fileURLToPath } from 'node:url';
import { histogramLabels, barChart, shares } from './charts.ts';
import { startGatewayChild, type GatewayChild } from './gateway-child.ts';
import {
  fmt,
  formatRows,
  machine,
  ratio,
  round,
  startServer,
  target,
  type BenchReport,
  type BenchRunOptions,
  type Chart,
  type ChildServer,
} from './lib.ts';
import type { ProbeSample } from './probe.ts';
import { drive, MIX_WEIGHTS, mixOp, seedStore, type DriveResult, type Store } from './traffic.ts';

export interface LoadConfig {
  rounds: number;
  connections: number;
  warmup_ms: number;
  duration_ms: number;
  meetings: number;
  segments_per_meeting: number;
  /** Also measure the baselines (the CI check skips them: it asserts outcomes only). */
  baselines: boolean;
  /** Extra server/main.ts flags for the gateway child. */
  gateway_args: string[];
}

export const FULL: LoadConfig = {
  rounds: 2,
  connections: 1_000,
  warmup_ms: 3_000,
  duration_ms: 10_000,
  meetings: 300,
  segments_per_meeting: 40,
  baselines: true,
  gateway_args: [],
};

export const TINY: LoadConfig = {
  rounds: 1,
  connections: 50,
  warmup_ms: 300,
  duration_ms: 1_000,
  meetings: 20,
  segments_per_meeting: 5,
  baselines: true,
  gateway_args: [],
};

/** The CI check (bench/load.check.ts): the real 1,000 connections, a few seconds, no baselines. */
export const CHECK: LoadConfig = {
  ...FULL,
  rounds: 1,
  warmup_ms: 2_000,
  duration_ms: 5_000,
  meetings: 100,
  segments_per_meeting: 20,
  baselines: false,
};

const server = (name: string): string => fileURLToPath(new URL(`./servers/${name}.ts`, import.meta.url));

type Figures = DriveResult & { rounds_rps: number[] };

export async function benchLoad(cfg: LoadConfig, log: (line: string) => void): Promise<BenchReport> {
  const benchmarks: Record<string, unknown> = {};
  let gw: GatewayChild | null = null;
  const bare: { key: string; label: string; s: ChildServer }[] = [];
  try {
    gw = await startGatewayChild({ args: cfg.gateway_args });
    log(
      `load: gateway pid ${gw.pid} on 127.0.0.1:${gw.apiPort}; seeding ${cfg.meetings} meetings × ${cfg.segments_per_meeting} segments through the Control API…`,
    );
    const t0 = performance.now();
    const store: Store = await seedStore(gw, cfg.meetings, cfg.segments_per_meeting);
    const seedS = (performance.now() - t0) / 1000;
    if (cfg.baselines) {
      bare.push({ key: 'bare_http', label: 'bare node:http', s: await startServer(server('bare-http')) });
      bare.push({
        key: 'bare_express',
        label: 'bare Express (JSON body parsed)',
        s: await startServer(server('bare-express'), { catchAll: true }),
      });
    }
    const before: ProbeSample = await gw.sample(true);
    const targets = [
      ...bare.map((b) => ({ key: b.key, label: b.label, port: b.s.info.port })),
      { key: 'gateway', label: 'gateway (server/main.ts)', port: gw.apiPort },
    ];
    const best: Record<string, Figures> = {};
    for (let r = 1; r <= cfg.rounds; r++) {
      for (const t of targets) {
        const result = await drive({
          port: t.port,
          token: store.token,
          connections: cfg.connections,
          warmupMs: cfg.warmup_ms,
          durationMs: cfg.duration_ms,
          next: (rand) => mixOp(store, rand),
          seed: r,
          requestTimeoutMs: 60_000,
        });
        log(
          `load: ${t.label} round ${r}/${cfg.rounds}: ${fmt(result.rps, 0)} req/s over ${result.sockets_opened} sockets, ` +
            `p50 ${fmt(result.latency_ms.p50, 1)} ms, p99 ${fmt(result.latency_ms.p99, 1)} ms, max ${fmt(result.latency_ms.max, 1)} ms, unexpected ${result.unexpected}` +
            (result.unexpected > 0 ? ` ${JSON.stringify(result.by_status)}` : ''),
        );
        const prev = best[t.key];
        const rounds_rps = [...(prev?.rounds_rps ?? []), result.rps];
        // Outcomes add up over rounds (an error in any round counts); the speed figures are the best round's.
        const keep = prev === undefined || result.rps > prev.rps ? result : prev;
        best[t.key] = {
          ...keep,
          rounds_rps,
          unexpected: (prev?.unexpected ?? 0) + result.unexpected,
          unexpected_examples: [...(prev?.unexpected_examples ?? []), ...result.unexpected_examples].slice(0, 10),
          by_status: mergeCounts(prev?.by_status ?? {}, result.by_status),
          sockets_opened: Math.min(prev?.sockets_opened ?? Infinity, result.sockets_opened),
        };
      }
    }
    const after = await gw.sample(true);
    const failures = gw.stderrLines().filter((l) => /failed:|Error|uncaught/i.test(l));
    Object.assign(benchmarks, best);
    benchmarks['gateway_process'] = {
      pid: gw.pid,
      seed_s: round(seedS, 2),
      meetings: cfg.meetings,
      segments_per_meeting: cfg.segments_per_meeting,
      rss_before_mb: mb(before.rss),
      rss_after_mb: mb(after.rss),
      heap_used_before_mb: mb(before.heap_used),
      heap_used_after_mb: mb(after.heap_used),
      fds_before: before.fds,
      fds_after: after.fds,
      logged_failures: failures.length,
      logged_failure_examples: failures.slice(0, 5),
    };
  } finally {
    await Promise.all([gw?.stop(), ...bare.map((b) => b.s.stop())]);
  }

  const g = benchmarks['gateway'] as Figures;
  const rps = (k: string): number | null => (benchmarks[k] as Figures | undefined)?.rps ?? null;
  const p99 = (k: string): number | null => (benchmarks[k] as Figures | undefined)?.latency_ms.p99 ?? null;
  const proc = benchmarks['gateway_process'] as { logged_failures: number };
  const ratios: Record<string, number | null> = cfg.baselines
    ? {
        rps_vs_bare_express: ratio(rps('gateway'), rps('bare_express')),
        rps_vs_bare_http: ratio(rps('gateway'), rps('bare_http')),
        p99_vs_bare_express: ratio(p99('gateway'), p99('bare_express')),
      }
    : {};
  return {
    generated_at: new Date().toISOString(),
    machine: machine(),
    config: {
      ...cfg,
      mix_percent: MIX_WEIGHTS,
      load_generator: 'the bench process: node:http keep-alive agent, one request in flight per connection (closed loop)',
      gateway: 'server/main.ts in a child process with bench/probe.ts preloaded; store seeded through POST /control/meetings',
    },
    benchmarks,
    ratios,
    baselines: cfg.baselines
      ? {
          rps_vs_bare_express: 'bare Express 5 app answering every request of the same mix with a small JSON object (best round)',
          rps_vs_bare_http: 'bare node:http server answering every request of the same mix with a small JSON object (best round)',
          p99_vs_bare_express: 'p99 latency of the bare Express app under the same load (a ratio above 1: the gateway is slower)',
        }
      : {},
    targets: {
      unexpected_answers: target(g.unexpected, { max: 0 }),
      connections_opened: target(g.sockets_opened, { min: cfg.connections }),
      gateway_logged_failures: target(proc.logged_failures, { max: 0 }),
    },
  };
}

function mergeCounts(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
}

function mb(bytes: number): number {
  return round(bytes / 2 ** 20, 1);
}

export const run = (opts: BenchRunOptions): Promise<BenchReport> => benchLoad(opts.tiny ? TINY : FULL, opts.log);

const ROWS = [
  ['bare_http', 'bare node:http (baseline)'],
  ['bare_express', 'bare Express (baseline)'],
  ['gateway', 'gateway'],
] as const;

export function table(report: BenchReport): string {
  const b = report.benchmarks as Record<string, Figures | undefined>;
  const rows: string[][] = [
    ['server', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'requests', 'unexpected', 'sockets', 'req/s by round'],
  ];
  for (const [key, label] of ROWS) {
    const x = b[key];
    if (x === undefined) continue;
    rows.push([
      label,
      fmt(x.rps, 0),
      fmt(x.latency_ms.p50, 1),
      fmt(x.latency_ms.p90, 1),
      fmt(x.latency_ms.p99, 1),
      fmt(x.latency_ms.max, 1),
      String(x.requests),
      String(x.unexpected),
      String(x.sockets_opened),
      x.rounds_rps.map((v) => fmt(v, 0)).join(' / '),
    ]);
  }
  const lines = [formatRows(rows), '', `gateway answers by status: ${JSON.stringify(b['gateway']?.by_status ?? {})}`];
  for (const [name, value] of Object.entries(report.ratios)) lines.push(`${name}: ${fmt(value, 3)}`);
  for (const [name, t] of Object.entries(report.targets))
    lines.push(`target ${name} ${t.target}: ${fmt(t.value, 0)} → ${t.met ? 'met' : 'NOT met'}`);
  return lines.join('\n');
}

export function markdown(report: BenchReport): string {
  const b = report.benchmarks as Record<string, Figures | undefined>;
  const cfg = report.config as unknown as LoadConfig;
  const out = [
    `${cfg.connections} concurrent keep-alive connections, ${fmt(cfg.warmup_ms / 1000, 0)} s warm-up, ${fmt(cfg.duration_ms / 1000, 0)} s measured, best of ${cfg.rounds} interleaved round(s).`,
    '',
    '| server | req/s | p50 ms | p90 ms | p99 ms | max ms | requests | unexpected | sockets |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const [key, label] of ROWS) {
    const x = b[key];
    if (x === undefined) continue;
    out.push(
      `| ${label} | ${fmt(x.rps, 0)} | ${fmt(x.latency_ms.p50, 1)} | ${fmt(x.latency_ms.p90, 1)} | ${fmt(x.latency_ms.p99, 1)} | ${fmt(x.latency_ms.max, 1)} | ${x.requests} | ${x.unexpected} | ${x.sockets_opened} |`,
    );
  }
  const g = b['gateway'];
  if (g !== undefined) {
    out.push('', '| gateway operation | share | count | p50 ms | p99 ms | max ms |', '|---|---:|---:|---:|---:|---:|');
    for (const [name, x] of Object.entries(g.by_op))
      out.push(
        `| ${name} | ${MIX_WEIGHTS[name] ?? '?'}% | ${x.count} | ${fmt(x.latency_ms.p50, 1)} | ${fmt(x.latency_ms.p99, 1)} | ${fmt(x.latency_ms.max, 1)} |`,
      );
    out.push(
      '',
      `Gateway answers by status: ${Object.entries(g.by_status)
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ')}.`,
    );
    for (const e of g.unexpected_examples) out.push(`- unexpected: ${e.op} → ${e.status} ${e.body.replace(/\|/g, '\\|')}`);
  }
  const p = report.benchmarks['gateway_process'] as Record<string, unknown> | undefined;
  if (p !== undefined) {
    out.push(
      '',
      `Gateway process (post-GC): RSS ${fmt(p['rss_before_mb'] as number, 1)} → ${fmt(p['rss_after_mb'] as number, 1)} MiB, heap used ${fmt(p['heap_used_before_mb'] as number, 1)} → ${fmt(p['heap_used_after_mb'] as number, 1)} MiB, ` +
        `descriptors ${String(p['fds_before'])} → ${String(p['fds_after'])}; failures logged: ${String(p['logged_failures'])}.`,
    );
  }
  return out.join('\n');
}

export function charts(report: BenchReport): Chart[] {
  const b = report.benchmarks as Record<string, Figures | undefined>;
  const present = ROWS.filter(([k]) => b[k] !== undefined);
  const g = b['gateway'];
  if (g === undefined) return [];
  const labels = histogramLabels(g.histogram.edges_ms);
  // Trim empty buckets at both ends (over every series) so the chart shows the populated range.
  const all = present.map(([k]) => b[k]!.histogram.counts);
  const used = labels.map((_, i) => all.some((c) => (c[i] ?? 0) > 0));
  const lo = Math.max(0, used.indexOf(true));
  const hi = Math.max(lo, used.lastIndexOf(true));
  return [
    {
      name: 'latency-histogram',
      title: `Latency distribution, ${g.connections} connections (share of requests per bucket)`,
      svg: barChart({
        title: `Latency distribution, ${g.connections} connections`,
        yLabel: '% of requests',
        categories: labels.slice(lo, hi + 1).map((l) => l),
        series: present.map(([k, label]) => ({ name: label, values: shares(b[k]!.histogram.counts).slice(lo, hi + 1) })),
        labelEvery: hi - lo > 16 ? 2 : 1,
      }),
    },
    {
      name: 'throughput',
      title: 'Throughput and p99 latency against the baselines',
      svg: barChart({
        title: `Requests per second, ${g.connections} connections (best round)`,
        yLabel: 'requests per second',
        categories: present.map(([, label]) => label),
        series: [{ name: 'req/s', values: present.map(([k]) => b[k]!.rps) }],
      }),
    },
  ];
}
