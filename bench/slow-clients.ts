/**
 * Slow-clients measurement (docs/decisions/023-slow-clients.md): how much
 * GET /v1/whoami latency suffers while 2,000 slowloris connections are held
 * open against the same listener, next to the same load without them.
 *
 *   without   whoami over a few keep-alive connections, nothing else open
 *   with      the same load while N slowloris connections each send one
 *             header line every few seconds and never finish their headers
 *
 * The server is the real gateway (server/main.ts, production limits) in its
 * own process (bench/gateway-child.ts); the load and the slowloris
 * connections come from this process. Rounds are interleaved (without, with,
 * without, with, …) and the median round is reported. A slowloris connection
 * the server closes (its headers timeout) is reopened at once, as an attacker
 * would, and counted.
 *
 * Target, reported and never asserted: whoami p99 with slowloris <= 2 × without.
 */
import { connect, type Socket } from 'node:net';
import { CONNECTION_DEFAULTS } from '../server/kernel/http/connection-limits.ts';
import {
  fmt,
  formatRows,
  load,
  machine,
  median,
  ratio,
  round,
  target,
  type BenchReport,
  type BenchRunOptions,
  type LatencyStats,
  type LoadResult,
} from './lib.ts';
import { startGatewayChild, type GatewayChild } from './gateway-child.ts';

export interface SlowClientsConfig {
  rounds: number;
  /** Slowloris connections held during the "with" phase. */
  slowloris: number;
  /** How often each slowloris connection sends one more header line. */
  line_every_ms: number;
  /** Keep-alive connections of the whoami load. */
  connections: number;
  warmup_ms: number;
  duration_ms: number;
  max_requests: number;
}

export const FULL: SlowClientsConfig = {
  rounds: 3,
  slowloris: 2_000,
  line_every_ms: 5_000,
  connections: 4,
  warmup_ms: 500,
  duration_ms: 4_000,
  max_requests: 1_000_000,
};

export const TINY: SlowClientsConfig = {
  rounds: 1,
  slowloris: 100,
  line_every_ms: 200,
  connections: 2,
  warmup_ms: 100,
  duration_ms: 400,
  max_requests: 200,
};

interface Phase {
  rps: number;
  requests: number;
  errors: number;
  latency_ms: LatencyStats;
}

interface HoldFigures {
  /** Slowloris connections asked for. */
  wanted: number;
  /** Seconds it took to have them all connected. */
  open_s: number;
  /** Still open when the measured load ended. */
  held_at_end: number;
  /** Closed by the server during the hold (and reopened). */
  closed_by_server: number;
  /** Connection attempts that failed. */
  connect_errors: number;
}

interface Round {
  without: Phase;
  with: Phase;
  hold: HoldFigures;
}

/**
 * N connections that start a request and never finish its headers: one
 * header line every `everyMs`, each connection on its own phase so the lines
 * are spread over time. Reopens what the server closes until stop().
 */
class Slowloris {
  readonly #port: number;
  readonly #everyMs: number;
  readonly #sockets = new Set<Socket>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #holding = true;
  closedByServer = 0;
  connectErrors = 0;

  constructor(port: number, everyMs: number) {
    this.#port = port;
    this.#everyMs = everyMs;
  }

  get open(): number {
    return this.#sockets.size;
  }

  /** Opens n connections; resolves once every one of them has connected (or failed). */
  async start(n: number): Promise<void> {
    await Promise.all(Array.from({ length: n }, () => this.#openOne()));
  }

  #openOne(): Promise<void> {
    return new Promise((resolve) => {
      const socket = connect(this.#port, '127.0.0.1');
      let connected = false;
      socket.setNoDelay(true);
      socket.on('data', () => {}); // the server's 400 envelope, when it gives up on the headers
      socket.on('error', () => {
        if (!connected) this.connectErrors += 1;
      });
      socket.once('connect', () => {
        connected = true;
        this.#sockets.add(socket);
        socket.write('GET /v1/whoami HTTP/1.1\r\nHost: 127.0.0.1\r\n');
        const first = setTimeout(
          () => {
            this.#timers.delete(first);
            const every = setInterval(() => socket.write('X-Slowloris: 1\r\n'), this.#everyMs);
            this.#timers.add(every);
            socket.once('close', () => {
              clearInterval(every);
              this.#timers.delete(every);
            });
          },
          Math.floor(Math.random() * this.#everyMs),
        );
        this.#timers.add(first);
        resolve();
      });
      socket.once('close', () => {
        this.#sockets.delete(socket);
        if (!connected) resolve();
        else if (this.#holding) {
          this.closedByServer += 1;
          void this.#openOne();
        }
      });
    });
  }

  stop(): void {
    this.#holding = false;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    for (const s of this.#sockets) s.destroy();
    this.#sockets.clear();
  }
}

export async function run(opts: BenchRunOptions): Promise<BenchReport> {
  const cfg = opts.tiny ? TINY : FULL;
  const log = opts.log;
  let server: GatewayChild | null = null;
  const rounds: Round[] = [];
  try {
    server = await startGatewayChild();
    const port = server.apiPort;
    const headers = { Authorization: `Bearer ${server.startupToken}` };
    const measure = async (label: string): Promise<Phase> => {
      const { samples: _samples, ...r }: LoadResult = await load({
        port,
        path: '/v1/whoami',
        headers,
        connections: cfg.connections,
        warmupMs: cfg.warmup_ms,
        durationMs: cfg.duration_ms,
        maxRequests: cfg.max_requests,
      });
      log(
        `slow-clients: whoami ${label}: ${fmt(r.rps, 0)} req/s, p50 ${fmt(r.latency_ms.p50, 3)} ms, p99 ${fmt(r.latency_ms.p99, 3)} ms, ${r.errors} errors`,
      );
      return { rps: r.rps, requests: r.requests, errors: r.errors, latency_ms: r.latency_ms };
    };

    for (let i = 1; i <= cfg.rounds; i++) {
      const without = await measure(`without slowloris (round ${i}/${cfg.rounds})`);
      const attack = new Slowloris(port, cfg.line_every_ms);
      const t0 = process.hrtime.bigint();
      await attack.start(cfg.slowloris);
      const openS = Number(process.hrtime.bigint() - t0) / 1e9;
      log(`slow-clients: ${attack.open} slowloris connections open in ${fmt(openS, 2)} s`);
      let withPhase: Phase;
      let hold: HoldFigures;
      try {
        withPhase = await measure(`with ${cfg.slowloris} slowloris (round ${i}/${cfg.rounds})`);
        hold = {
          wanted: cfg.slowloris,
          open_s: round(openS, 3),
          held_at_end: attack.open,
          closed_by_server: attack.closedByServer,
          connect_errors: attack.connectErrors,
        };
      } finally {
        attack.stop();
      }
      rounds.push({ without, with: withPhase, hold });
      await new Promise((r) => setTimeout(r, 200)); // let the server reap the closed sockets before the next round
    }
  } finally {
    await server?.stop();
  }

  const med = (pick: (r: Round) => number): number | null => {
    const m = median(rounds.map(pick));
    return m === null ? null : round(m, 3);
  };
  const summary = {
    without: { rps: med((r) => r.without.rps), p50_ms: med((r) => r.without.latency_ms.p50), p99_ms: med((r) => r.without.latency_ms.p99) },
    with_slowloris: { rps: med((r) => r.with.rps), p50_ms: med((r) => r.with.latency_ms.p50), p99_ms: med((r) => r.with.latency_ms.p99) },
  };
  const ratios = {
    whoami_p50_with_slowloris_vs_without: ratio(summary.with_slowloris.p50_ms, summary.without.p50_ms),
    whoami_p99_with_slowloris_vs_without: ratio(summary.with_slowloris.p99_ms, summary.without.p99_ms),
    whoami_rps_with_slowloris_vs_without: ratio(summary.with_slowloris.rps, summary.without.rps),
  };
  return {
    generated_at: new Date().toISOString(),
    machine: machine(),
    config: {
      ...cfg,
      tiny: opts.tiny,
      server: 'the real gateway (server/main.ts, bench/gateway-child.ts) in a child process, production connection limits',
      limits: { ...CONNECTION_DEFAULTS },
      load_generator:
        'the bench process: node:http keep-alive agent, one request in flight per connection; slowloris sockets from the same process',
      summary_rule: 'median over rounds of each figure; ratios of those medians',
    },
    benchmarks: { summary, rounds },
    ratios,
    baselines: {
      whoami_p50_with_slowloris_vs_without: 'whoami p50 with no slowloris connections open (same run, median round)',
      whoami_p99_with_slowloris_vs_without: 'whoami p99 with no slowloris connections open (same run, median round)',
      whoami_rps_with_slowloris_vs_without: 'whoami req/s with no slowloris connections open (same run, median round)',
    },
    targets: {
      whoami_p99_with_slowloris_vs_without: target(ratios.whoami_p99_with_slowloris_vs_without, { max: 2 }),
    },
  };
}

interface Figures {
  summary?: {
    without: { rps: number | null; p50_ms: number | null; p99_ms: number | null };
    with_slowloris: { rps: number | null; p50_ms: number | null; p99_ms: number | null };
  };
  rounds?: Round[];
}

function rows(report: BenchReport): string[][] {
  const b = report.benchmarks as Figures;
  const n = String((report.config as { slowloris?: number }).slowloris ?? '?');
  const out: string[][] = [['whoami', 'req/s', 'p50 ms', 'p99 ms', 'slowloris held', 'closed by server']];
  out.push([
    'without slowloris (median round)',
    fmt(b.summary?.without.rps, 0),
    fmt(b.summary?.without.p50_ms, 3),
    fmt(b.summary?.without.p99_ms, 3),
    '',
    '',
  ]);
  out.push([
    `with ${n} slowloris (median round)`,
    fmt(b.summary?.with_slowloris.rps, 0),
    fmt(b.summary?.with_slowloris.p50_ms, 3),
    fmt(b.summary?.with_slowloris.p99_ms, 3),
    '',
    '',
  ]);
  (b.rounds ?? []).forEach((r, i) => {
    out.push([
      `  round ${i + 1} without`,
      fmt(r.without.rps, 0),
      fmt(r.without.latency_ms.p50, 3),
      fmt(r.without.latency_ms.p99, 3),
      '',
      '',
    ]);
    out.push([
      `  round ${i + 1} with`,
      fmt(r.with.rps, 0),
      fmt(r.with.latency_ms.p50, 3),
      fmt(r.with.latency_ms.p99, 3),
      `${r.hold.held_at_end} of ${r.hold.wanted}`,
      String(r.hold.closed_by_server),
    ]);
  });
  return out;
}

export function table(report: BenchReport): string {
  const lines = [formatRows(rows(report)), ''];
  for (const [name, value] of Object.entries(report.ratios)) lines.push(`${name}: ${fmt(value, 3)}`);
  for (const [name, t] of Object.entries(report.targets))
    lines.push(`target ${name} ${t.target}: ${fmt(t.value, 3)} → ${t.met ? 'met' : 'NOT met'}`);
  return lines.join('\n');
}

export function markdown(report: BenchReport): string {
  const [head, ...body] = rows(report);
  return [
    `| ${head!.join(' | ')} |`,
    `|---|${head!
      .slice(1)
      .map(() => '---:')
      .join('|')}|`,
    ...body.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}
