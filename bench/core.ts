/**
 * Core benchmark: what the gateway's request path costs next to bare servers,
 * and how search latency grows with the size of the store.
 *
 *   bare_http        node:http hello-world
 *   bare_express     Express 5 hello-world
 *   gateway_whoami   GET /v1/whoami, authenticated (a read token)
 *   gateway_meetings GET /v1/meetings?limit=50 over the small store
 *   search_small     GET /v1/search?q=… sequentially over the small store
 *   search_large     the same over the large store
 *
 * Every server runs in its own child process on 127.0.0.1 with an ephemeral
 * port; the load comes from this process over keep-alive connections. The
 * stores are seeded through MeetingsService.create (bench/servers/gateway.ts).
 *
 * Targets, reported and never asserted: whoami >= 0.9 of bare Express;
 * search p99 growth (large/small) <= 3.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { QUERY_MIX } from './corpus.ts';
import {
  fmt,
  formatRows,
  latencyStats,
  load,
  machine,
  ratio,
  startServer,
  target,
  type BenchReport,
  type BenchRunOptions,
  type ChildServer,
  type LatencyStats,
  type LoadResult,
} from './lib.ts';
import type { GatewayServerArg } from './servers/gateway.ts';

const server = (name: string): string => fileURLToPath(new URL(`./servers/${name}.ts`, import.meta.url));

export interface CoreConfig {
  /** Throughput figures are measured this many times, interleaved; the best round is reported. */
  rounds: number;
  connections: number;
  warmup_ms: number;
  duration_ms: number;
  max_requests: number;
  search_warmup_ms: number;
  search_duration_ms: number;
  search_max_queries: number;
  small_meetings: number;
  large_meetings: number;
  segments_per_meeting: number;
}

export const FULL: CoreConfig = {
  rounds: 3,
  connections: 16,
  warmup_ms: 1_000,
  duration_ms: 4_000,
  max_requests: 1_000_000,
  search_warmup_ms: 1_000,
  search_duration_ms: 6_000,
  search_max_queries: 50_000,
  small_meetings: 100,
  large_meetings: 10_000,
  segments_per_meeting: 100,
};

export const TINY: CoreConfig = {
  rounds: 1,
  connections: 2,
  warmup_ms: 100,
  duration_ms: 500,
  max_requests: 200,
  search_warmup_ms: 50,
  search_duration_ms: 500,
  search_max_queries: 60,
  small_meetings: 10,
  large_meetings: 20,
  segments_per_meeting: 5,
};

type Throughput = Omit<LoadResult, 'samples'> & { rounds_rps: number[] };

interface SearchFigures {
  meetings: number;
  segments: number;
  seed_s: number;
  queries: number;
  errors: number;
  latency_ms: LatencyStats;
  by_query: Record<string, LatencyStats>;
}

export async function run(opts: BenchRunOptions): Promise<BenchReport> {
  const cfg = opts.tiny ? TINY : FULL;
  const log = opts.log;
  const benchmarks: Record<string, unknown> = {};
  const dirs: string[] = [];
  const servers: ChildServer[] = [];

  const measure = async (label: string, port: number, path: string, headers: Record<string, string>): Promise<Omit<LoadResult, 'samples'>> => {
    const { samples: _samples, ...result } = await load({
      port,
      path,
      headers,
      connections: cfg.connections,
      warmupMs: cfg.warmup_ms,
      durationMs: cfg.duration_ms,
      maxRequests: cfg.max_requests,
    });
    log(`core: ${label}: ${fmt(result.rps, 0)} req/s, p50 ${fmt(result.latency_ms.p50, 3)} ms, p99 ${fmt(result.latency_ms.p99, 3)} ms, ${result.errors} errors`);
    return result;
  };

  /**
   * The throughput figures, measured in interleaved rounds (every target
   * once per round, the servers idle in between), so a burst of load from
   * elsewhere on the machine hits one round of every figure rather than all
   * rounds of one. The round with the most requests per second is reported.
   */
  const throughputRounds = async (
    targets: { key: string; label: string; port: number; path: string; headers?: Record<string, string> }[],
  ): Promise<Record<string, Throughput>> => {
    const best: Record<string, Throughput> = {};
    for (let round = 1; round <= cfg.rounds; round++) {
      for (const t of targets) {
        const result = await measure(`${t.label} (round ${round}/${cfg.rounds})`, t.port, t.path, t.headers ?? {});
        const prev = best[t.key];
        const rounds_rps = [...(prev?.rounds_rps ?? []), result.rps];
        best[t.key] = prev === undefined || result.rps > prev.rps ? { ...result, rounds_rps } : { ...prev, rounds_rps };
      }
    }
    return best;
  };

  const start = async (name: string, arg: unknown = {}): Promise<ChildServer> => {
    const s = await startServer(server(name), arg);
    servers.push(s);
    return s;
  };
  const stop = async (s: ChildServer): Promise<void> => {
    await s.stop();
    servers.splice(servers.indexOf(s), 1);
  };
  const gateway = async (meetings: number): Promise<ChildServer> => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mas-bench-'));
    dirs.push(dataDir);
    log(`core: seeding ${meetings} meetings × ${cfg.segments_per_meeting} segments through MeetingsService.create…`);
    const arg: GatewayServerArg = { dataDir, meetings, segments: cfg.segments_per_meeting };
    const s = await start('gateway', arg);
    log(`core: seeded in ${fmt(Number(s.info['seed_ms']) / 1000, 1)} s`);
    return s;
  };

  try {
    // 1 to 4: the baselines and the gateway over the small store, all up at once.
    const bareHttp = await start('bare-http');
    const bareExpress = await start('bare-express');
    const small = await gateway(cfg.small_meetings);
    const auth = { Authorization: `Bearer ${String(small.info['token'])}` };
    log(`core: throughput: ${cfg.rounds} round(s), ${cfg.connections} connections, ${cfg.warmup_ms} ms warm-up, ${cfg.duration_ms} ms measured`);
    const figures = await throughputRounds([
      { key: 'bare_http', label: 'bare node:http hello-world', port: bareHttp.info.port, path: '/' },
      { key: 'bare_express', label: 'bare Express hello-world', port: bareExpress.info.port, path: '/' },
      { key: 'gateway_whoami', label: 'gateway GET /v1/whoami', port: small.info.port, path: '/v1/whoami', headers: auth },
      { key: 'gateway_meetings', label: 'gateway GET /v1/meetings?limit=50', port: small.info.port, path: '/v1/meetings?limit=50', headers: auth },
    ]);
    Object.assign(benchmarks, figures);
    benchmarks['gateway_meetings'] = { ...figures['gateway_meetings'], meetings: cfg.small_meetings };
    await stop(bareHttp);
    await stop(bareExpress);

    benchmarks['search_small'] = await search(cfg, small, log);
    await stop(small);

    // Large search: a fresh gateway over the large store.
    const large = await gateway(cfg.large_meetings);
    benchmarks['search_large'] = await search(cfg, large, log);
    await stop(large);
  } finally {
    await Promise.all(servers.map((x) => x.stop()));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }

  const rps = (key: string): number | null => (benchmarks[key] as Throughput | undefined)?.rps ?? null;
  const p99 = (key: string): number | null => (benchmarks[key] as SearchFigures | undefined)?.latency_ms.p99 ?? null;
  const ratios = {
    whoami_vs_bare_express: ratio(rps('gateway_whoami'), rps('bare_express')),
    whoami_vs_bare_http: ratio(rps('gateway_whoami'), rps('bare_http')),
    meetings_vs_bare_express: ratio(rps('gateway_meetings'), rps('bare_express')),
    search_p99_growth: ratio(p99('search_large'), p99('search_small')),
  };
  return {
    generated_at: new Date().toISOString(),
    machine: machine(),
    config: {
      ...cfg,
      tiny: opts.tiny,
      query_mix: [...QUERY_MIX],
      load_generator: 'the bench process: node:http keep-alive agent, one request in flight per connection',
      note:
        'servers and load generator share the machine; where the load generator saturates a core first (bare servers), ' +
        'ratios against the bare figures understate the gateway overhead',
    },
    benchmarks,
    ratios,
    targets: {
      whoami_vs_bare_express: target(ratios.whoami_vs_bare_express, { min: 0.9 }),
      search_p99_growth: target(ratios.search_p99_growth, { max: 3 }),
    },
  };
}

/** Sequential search queries (one connection), cycling through the query mix. */
async function search(cfg: CoreConfig, s: ChildServer, log: (line: string) => void): Promise<SearchFigures> {
  const meetings = Number(s.info['meetings']);
  log(`core: search over ${meetings} meetings: ${cfg.search_duration_ms} ms or ${cfg.search_max_queries} queries, one connection`);
  const paths = QUERY_MIX.map((q) => `/v1/search?q=${encodeURIComponent(q)}`);
  const result = await load({
    port: s.info.port,
    path: (i) => paths[i % paths.length]!,
    headers: { Authorization: `Bearer ${String(s.info['token'])}` },
    connections: 1,
    warmupMs: cfg.search_warmup_ms,
    durationMs: cfg.search_duration_ms,
    maxRequests: cfg.search_max_queries,
  });
  const byQuery: Record<string, LatencyStats> = {};
  QUERY_MIX.forEach((q, i) => {
    byQuery[q] = latencyStats(result.samples.filter((x) => x.path === paths[i]).map((x) => x.ms));
  });
  log(`core: search over ${meetings} meetings: p50 ${fmt(result.latency_ms.p50, 3)} ms, p99 ${fmt(result.latency_ms.p99, 3)} ms`);
  return {
    meetings,
    segments: Number(s.info['segments']),
    seed_s: Math.round(Number(s.info['seed_ms'])) / 1000,
    queries: result.requests,
    errors: result.errors,
    latency_ms: result.latency_ms,
    by_query: byQuery,
  };
}

export function table(report: BenchReport): string {
  const b = report.benchmarks as Record<string, (Throughput & Partial<SearchFigures>) | undefined>;
  const rows: string[][] = [['benchmark', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'errors', 'req/s by round']];
  for (const [key, label] of [
    ['bare_http', 'bare node:http hello'],
    ['bare_express', 'bare Express hello'],
    ['gateway_whoami', 'gateway GET /v1/whoami'],
    ['gateway_meetings', 'gateway GET /v1/meetings?limit=50'],
  ] as const) {
    const x = b[key];
    rows.push([
      label,
      fmt(x?.rps, 0),
      fmt(x?.latency_ms.p50, 3),
      fmt(x?.latency_ms.p99, 3),
      String(x?.requests ?? '–'),
      String(x?.errors ?? '–'),
      (x?.rounds_rps ?? []).map((r) => fmt(r, 0)).join(' / '),
    ]);
  }
  for (const key of ['search_small', 'search_large'] as const) {
    const x = b[key] as SearchFigures | undefined;
    rows.push([
      `search, ${x?.meetings ?? '?'} meetings (${x?.segments ?? '?'} segments, seeded in ${fmt(x?.seed_s, 1)} s)`,
      '',
      fmt(x?.latency_ms.p50, 3),
      fmt(x?.latency_ms.p99, 3),
      String(x?.queries ?? '–'),
      String(x?.errors ?? '–'),
      '',
    ]);
    for (const [q, stats] of Object.entries(x?.by_query ?? {})) {
      rows.push([`  q=${q}`, '', fmt(stats.p50, 3), fmt(stats.p99, 3), String(stats.count), '', '']);
    }
  }
  const lines = [formatRows(rows), ''];
  for (const [name, value] of Object.entries(report.ratios)) lines.push(`${name}: ${fmt(value, 3)}`);
  for (const [name, t] of Object.entries(report.targets)) lines.push(`target ${name} ${t.target}: ${fmt(t.value, 3)} → ${t.met ? 'met' : 'NOT met'}`);
  return lines.join('\n');
}
