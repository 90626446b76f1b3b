/**
 * Core benchmark: what the gateway's request path costs next to bare servers,
 * and how search latency grows with the size of the store.
 *
 * Throughput, taken with autocannon (bench/autocannon.ts; 50 connections,
 * 8 s per figure, three rounds in which every server takes its turn), over a
 * store of 30 meetings:
 *
 *   whoami_gateway        GET /v1/whoami, authenticated (a read token)
 *   whoami_bare_express   Express 5 answering the same JSON
 *   whoami_bare_http      node:http answering the same JSON
 *   meetings_gateway      GET /v1/meetings?limit=50
 *   meetings_bare_http    node:http running the same SQL on the same SQLite file
 *                         (bench/servers/bare-sqlite.ts)
 *   search_gateway        GET /v1/search?q=… (the query mix, in turn)
 *   search_bare_http      the same queries, bare node:http, same file
 *
 * Beside each throughput figure, the server process's CPU per request during
 * its measured seconds (user + system from /proc/<pid>/stat; the warm-up runs
 * first, on its own). Requests per second move with whatever else runs on the
 * machine; CPU per request hardly does, so each ratio also comes as
 * `<name>_cpu` (the baseline's CPU per request over the gateway's): the figure
 * to compare two commits by when the machine is not idle.
 *
 * Before measuring, one answer of every baseline is compared byte for byte
 * with the gateway's; a difference stops the benchmark. During the run every
 * answer other than 2xx, and every connection error, is counted.
 *
 * Latency growth, with the project's own driver (lib.ts load(), which checks
 * the status of every answer), one connection, sequential:
 *
 *   search_small     GET /v1/search?q=… over the small store
 *   search_large     the same over the large store
 *
 * Every server runs in its own child process of the same node binary on
 * 127.0.0.1 with an ephemeral port; the load comes from this process. The
 * stores are seeded through MeetingsService.create (bench/servers/gateway.ts).
 *
 * Targets, reported and never asserted: whoami >= 0.9 of bare Express;
 * meetings list and search >= 0.5 of bare node:http on the same file; search
 * p99 growth (large/small) <= 3. A ratio is the median of the per-round
 * ratios (each round's gateway figure over the same round's baseline).
 *
 * `--http-seconds N` (npm run bench -- --only core --http-seconds 2) shortens
 * every throughput figure for a quick look.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AUTOCANNON_VERSION, cannon, type CannonFigures } from './autocannon.ts';
import { QUERY_MIX } from './corpus.ts';
import {
  FlagError,
  fmt,
  formatRows,
  latencyStats,
  load,
  machine,
  median,
  ratio,
  round,
  startServer,
  target,
  type BenchReport,
  type BenchRunOptions,
  type ChildServer,
  type LatencyStats,
} from './lib.ts';
import type { BareSqliteArg } from './servers/bare-sqlite.ts';
import type { GatewayServerArg } from './servers/gateway.ts';

const server = (name: string): string => fileURLToPath(new URL(`./servers/${name}.ts`, import.meta.url));

export interface CoreConfig {
  /** Throughput figures are measured this many times, interleaved (every server once per round). */
  rounds: number;
  /** autocannon connections. */
  connections: number;
  warmup_s: number;
  /** Measured seconds of each throughput figure in each round. */
  http_seconds: number;
  /** Meetings in the store of the throughput figures. */
  http_meetings: number;
  search_warmup_ms: number;
  search_duration_ms: number;
  search_max_queries: number;
  small_meetings: number;
  large_meetings: number;
  segments_per_meeting: number;
}

export const FULL: CoreConfig = {
  rounds: 3,
  connections: 50,
  warmup_s: 1,
  http_seconds: 8,
  http_meetings: 30,
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
  warmup_s: 0,
  http_seconds: 1,
  http_meetings: 5,
  search_warmup_ms: 50,
  search_duration_ms: 500,
  search_max_queries: 60,
  small_meetings: 10,
  large_meetings: 20,
  segments_per_meeting: 5,
};

interface SearchFigures {
  meetings: number;
  segments: number;
  seed_s: number;
  queries: number;
  errors: number;
  latency_ms: LatencyStats;
  by_query: Record<string, LatencyStats>;
}

/** One throughput figure: the median round, every round, and what went wrong in any of them. */
export type Throughput = Omit<CannonFigures, 'rps'> & { rps: number | null; rounds_rps: number[] };

/** The throughput figures, in the order they are measured in every round. */
export const HTTP_FIGURES = [
  ['whoami_gateway', 'gateway GET /v1/whoami (authenticated)'],
  ['whoami_bare_express', 'bare Express, same JSON'],
  ['whoami_bare_http', 'bare node:http, same JSON'],
  ['meetings_gateway', 'gateway GET /v1/meetings?limit=50'],
  ['meetings_bare_http', 'bare node:http + same SQLite file, same query'],
  ['search_gateway', 'gateway GET /v1/search?q=…'],
  ['search_bare_http', 'bare node:http + same SQLite file, same queries'],
] as const;
type FigureKey = (typeof HTTP_FIGURES)[number][0];

/** Each ratio: the gateway figure over its baseline. */
const HTTP_RATIOS = {
  whoami_vs_bare_express: ['whoami_gateway', 'whoami_bare_express'],
  whoami_vs_bare_http: ['whoami_gateway', 'whoami_bare_http'],
  meetings_vs_bare_http: ['meetings_gateway', 'meetings_bare_http'],
  search_vs_bare_http: ['search_gateway', 'search_bare_http'],
} as const satisfies Record<string, readonly [FigureKey, FigureKey]>;

/** --http-seconds from the command line (npm run bench -- --only core --http-seconds 2), else the config's. */
export function httpSeconds(options: Record<string, string> | undefined, fallback: number): number {
  const given = options?.['http-seconds'];
  if (given === undefined) return fallback;
  const n = Number(given);
  if (!Number.isFinite(n) || n <= 0 || n > 600)
    throw new FlagError(`--http-seconds must be a number of seconds above 0 and at most 600, got "${given}"`);
  return n;
}

/** GET path → answer body, for the check that a baseline answers what the gateway answers. */
async function body(port: number, path: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${text.slice(0, 200)}`);
  return text;
}

/** Where each throughput figure is measured: a server, its paths, and the token the gateway wants. */
type Targets = Record<FigureKey, { port: number; pid: number; paths: readonly string[]; headers?: Record<string, string> }>;

/** Same question, same answer: every baseline's bytes against the gateway's, before anything is timed. */
async function checkSameAnswers(targets: Targets): Promise<void> {
  for (const [gatewayKey, baselineKeys] of [
    ['whoami_gateway', ['whoami_bare_express', 'whoami_bare_http']],
    ['meetings_gateway', ['meetings_bare_http']],
    ['search_gateway', ['search_bare_http']],
  ] as const) {
    const g = targets[gatewayKey];
    for (const path of g.paths) {
      const expected = await body(g.port, path, g.headers);
      for (const key of baselineKeys) {
        const got = await body(targets[key].port, path);
        if (got !== expected)
          throw new Error(
            `core: ${key} answers GET ${path} differently from the gateway:\n  gateway:  ${expected.slice(0, 300)}\n  baseline: ${got.slice(0, 300)}`,
          );
      }
    }
  }
}

/** The autocannon rounds: every figure once per round, in turn, so load on the machine falls on all alike. */
async function throughputRounds(
  cfg: CoreConfig,
  targets: Targets,
  log: (line: string) => void,
): Promise<Partial<Record<FigureKey, CannonFigures[]>>> {
  log(
    `core: throughput with autocannon ${AUTOCANNON_VERSION}: ${cfg.rounds} round(s), ${cfg.connections} connections, ${cfg.warmup_s} s warm-up, ${cfg.http_seconds} s measured`,
  );
  const rounds: Partial<Record<FigureKey, CannonFigures[]>> = {};
  for (let r = 1; r <= cfg.rounds; r++) {
    for (const [key, label] of HTTP_FIGURES) {
      const t = targets[key];
      const f = await cannon({
        port: t.port,
        paths: t.paths,
        ...(t.headers === undefined ? {} : { headers: t.headers }),
        connections: cfg.connections,
        seconds: cfg.http_seconds,
        warmupSeconds: cfg.warmup_s,
        serverPid: t.pid,
      });
      (rounds[key] ??= []).push(f);
      log(
        `core: ${label} (round ${r}/${cfg.rounds}): ${fmt(f.rps, 0)} req/s, p50 ${fmt(f.latency_ms.p50, 1)} ms, p99 ${fmt(f.latency_ms.p99, 1)} ms, ` +
          `server CPU ${fmt(f.server_cpu_us, 1)} µs/request, ${f.errors} errors, ${f.non2xx} non-2xx`,
      );
    }
  }
  return rounds;
}

function coreReport(
  cfg: CoreConfig,
  tiny: boolean,
  benchmarks: Record<string, unknown>,
  perRound: Record<string, number | null>,
): BenchReport {
  const p99 = (key: string): number | null => (benchmarks[key] as SearchFigures | undefined)?.latency_ms.p99 ?? null;
  const ratios: Record<string, number | null> = {
    ...Object.fromEntries(
      Object.keys(HTTP_RATIOS)
        .flatMap((name) => [name, `${name}_cpu`])
        .map((name) => [name, perRound[name] ?? null]),
    ),
    search_p99_growth: ratio(p99('search_large'), p99('search_small')),
  };
  const at = (name: string): number | null => ratios[name] ?? null;
  return {
    generated_at: new Date().toISOString(),
    machine: machine(),
    config: {
      ...cfg,
      tiny,
      query_mix: [...QUERY_MIX],
      load_generator: `autocannon ${AUTOCANNON_VERSION} in the bench process (throughput); the bench's own node:http loop, one connection (search latency)`,
      servers: `child processes of the same node (${process.version}), 127.0.0.1`,
      figure:
        'req/s: the median of the rounds; ratio: the median of the per-round ratios; ' +
        '*_cpu ratios: the baseline server process\u2019s CPU per request over the gateway\u2019s (load on the machine barely moves them)',
      note:
        'servers and load generator share the machine; where autocannon saturates a core first ' +
        '(bare servers), ratios understate the gateway overhead',
    },
    benchmarks,
    ratios,
    baselines: {
      whoami_vs_bare_express: 'bare Express 5 answering the gateway\u2019s whoami JSON (median of per-round ratios)',
      whoami_vs_bare_http: 'bare node:http answering the gateway\u2019s whoami JSON (median of per-round ratios)',
      meetings_vs_bare_http: 'bare node:http running the same SQL on the same SQLite file (median of per-round ratios)',
      search_vs_bare_http: 'bare node:http running the same FTS queries on the same SQLite file (median of per-round ratios)',
      whoami_vs_bare_express_cpu: 'CPU per request: bare Express over the gateway (median of per-round ratios; higher is cheaper)',
      whoami_vs_bare_http_cpu: 'CPU per request: bare node:http over the gateway (median of per-round ratios)',
      meetings_vs_bare_http_cpu: 'CPU per request: bare node:http + SQLite over the gateway (median of per-round ratios)',
      search_vs_bare_http_cpu: 'CPU per request: bare node:http + SQLite FTS over the gateway (median of per-round ratios)',
      search_p99_growth: 'search p99 over the small store (search_small)',
    },
    targets: {
      whoami_vs_bare_express: target(at('whoami_vs_bare_express'), { min: 0.9 }),
      meetings_vs_bare_http: target(at('meetings_vs_bare_http'), { min: 0.5 }),
      search_vs_bare_http: target(at('search_vs_bare_http'), { min: 0.5 }),
      search_p99_growth: target(at('search_p99_growth'), { max: 3 }),
    },
  };
}

export async function run(opts: BenchRunOptions): Promise<BenchReport> {
  const base = opts.tiny ? TINY : FULL;
  const cfg: CoreConfig = { ...base, http_seconds: httpSeconds(opts.options, base.http_seconds) };
  const log = opts.log;
  const benchmarks: Record<string, unknown> = {};
  const dirs: string[] = [];
  const servers: ChildServer[] = [];

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

  let perRound: Record<string, number | null>;
  try {
    // Throughput: the gateway over a small store and its baselines, all up at once.
    const gw = await gateway(cfg.http_meetings);
    const auth = { Authorization: `Bearer ${String(gw.info['token'])}` };
    const whoami = JSON.parse(await body(gw.info.port, '/v1/whoami', auth)) as unknown;
    const bareExpress = await start('bare-express', { json: whoami });
    const bareHttp = await start('bare-http', { json: whoami });
    const sqliteArg: BareSqliteArg = { database: String(gw.info['database']) };
    const bareSqlite = await start('bare-sqlite', sqliteArg);
    const searchPaths = QUERY_MIX.map((q) => `/v1/search?q=${encodeURIComponent(q)}`);
    const portAndPid = (s: ChildServer): { port: number; pid: number } => ({ port: s.info.port, pid: s.pid });
    const targets: Targets = {
      whoami_gateway: { ...portAndPid(gw), paths: ['/v1/whoami'], headers: auth },
      whoami_bare_express: { ...portAndPid(bareExpress), paths: ['/v1/whoami'] },
      whoami_bare_http: { ...portAndPid(bareHttp), paths: ['/v1/whoami'] },
      meetings_gateway: { ...portAndPid(gw), paths: ['/v1/meetings?limit=50'], headers: auth },
      meetings_bare_http: { ...portAndPid(bareSqlite), paths: ['/v1/meetings?limit=50'] },
      search_gateway: { ...portAndPid(gw), paths: searchPaths, headers: auth },
      search_bare_http: { ...portAndPid(bareSqlite), paths: searchPaths },
    };

    await checkSameAnswers(targets);

    const rounds = await throughputRounds(cfg, targets, log);
    for (const [key] of HTTP_FIGURES) benchmarks[key] = throughput(rounds[key] ?? []);
    perRound = perRoundRatios(rounds);
    for (const s of [bareExpress, bareHttp, bareSqlite, gw]) await stop(s);

    const small = await gateway(cfg.small_meetings);
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

  return coreReport(cfg, opts.tiny, benchmarks, perRound);
}

/**
 * Each ratio of HTTP_RATIOS as the median of its per-round ratios, twice:
 * throughput (gateway req/s over the baseline's) and, as `<name>_cpu`, CPU
 * per request (the baseline's over the gateway's, so that for both a higher
 * figure means a cheaper gateway). A ratio any round lacks is null.
 */
export function perRoundRatios(rounds: Partial<Record<FigureKey, readonly CannonFigures[]>>): Record<string, number | null> {
  const mid = (ratios: (number | null)[]): number | null => {
    const usable = ratios.filter((x): x is number => x !== null);
    const m = median(usable);
    return usable.length === ratios.length && m !== null ? round(m, 3) : null;
  };
  return Object.fromEntries(
    Object.entries(HTTP_RATIOS).flatMap(([name, [a, b]]) => {
      const gw = rounds[a] ?? [];
      const base = rounds[b] ?? [];
      return [
        [name, mid(gw.map((x, i) => ratio(x.rps, base[i]?.rps)))],
        [`${name}_cpu`, mid(gw.map((x, i) => ratio(base[i]?.server_cpu_us ?? null, x.server_cpu_us)))],
      ];
    }),
  );
}

/** One figure over its rounds: the median round's latency, totals over every round. */
export function throughput(rounds: readonly CannonFigures[]): Throughput {
  const rps = rounds.map((r) => r.rps);
  const mid = median(rps);
  const middle = [...rounds].sort((a, b) => a.rps - b.rps)[Math.floor((rounds.length - 1) / 2)];
  return {
    rps: mid === null ? null : round(mid, 1),
    rounds_rps: rps,
    requests: rounds.reduce((n, r) => n + r.requests, 0),
    errors: rounds.reduce((n, r) => n + r.errors, 0),
    non2xx: rounds.reduce((n, r) => n + r.non2xx, 0),
    latency_ms: middle?.latency_ms ?? { mean: Number.NaN, p50: Number.NaN, p90: Number.NaN, p99: Number.NaN, max: Number.NaN },
    server_cpu_us: median(rounds.flatMap((r) => (r.server_cpu_us === null ? [] : [r.server_cpu_us]))),
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
  const rows: string[][] = [['benchmark', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'requests', 'errors', 'req/s by round']];
  for (const [key, label] of HTTP_FIGURES) {
    const x = b[key];
    rows.push([
      label,
      fmt(x?.rps, 0),
      fmt(x?.latency_ms.p50, 3),
      fmt(x?.latency_ms.p99, 3),
      fmt(x?.server_cpu_us, 1),
      String(x?.requests ?? '–'),
      x === undefined ? '–' : String(x.errors + x.non2xx),
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
      '',
      String(x?.queries ?? '–'),
      String(x?.errors ?? '–'),
      '',
    ]);
    for (const [q, stats] of Object.entries(x?.by_query ?? {})) {
      rows.push([`  q=${q}`, '', fmt(stats.p50, 3), fmt(stats.p99, 3), '', String(stats.count), '', '']);
    }
  }
  const lines = [formatRows(rows), ''];
  for (const [name, value] of Object.entries(report.ratios)) lines.push(`${name}: ${fmt(value, 3)}`);
  for (const [name, t] of Object.entries(report.targets))
    lines.push(`target ${name} ${t.target}: ${fmt(t.value, 3)} → ${t.met ? 'met' : 'NOT met'}`);
  return lines.join('\n');
}
