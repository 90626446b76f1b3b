/**
 * The HTTP throughput figures of the benchmarks, taken with autocannon (a
 * standard load generator on npm) rather than the project's own load loop
 * (lib.ts load()): the own loop, one request in flight per connection through
 * node:http's client, saturated its core before a bare server did, so it
 * measured itself as much as the server (docs/decisions/063-http-figures-from-autocannon.md).
 *
 * autocannon runs in this process, so every server under test is a child
 * process of the same node binary, on 127.0.0.1.
 */
import autocannon from 'autocannon';
import { createRequire } from 'node:module';
import { processCpuSeconds, round } from './lib.ts';

/** The version that took the figures, for the report. */
export const AUTOCANNON_VERSION = (createRequire(import.meta.url)('autocannon/package.json') as { version: string }).version;

export interface CannonOptions {
  port: number;
  /** One path, or several sent in turn on every connection (a query mix). */
  paths: readonly string[];
  headers?: Record<string, string>;
  connections: number;
  /** Measured seconds (fractions allowed). */
  seconds: number;
  /** Seconds of the same load before measuring, not counted. */
  warmupSeconds: number;
  /** The server's process: its CPU during the measured seconds is reported per request. */
  serverPid?: number;
}

export interface CannonFigures {
  /** Mean requests per second over the measured seconds. */
  rps: number;
  requests: number;
  /** Connection errors and timeouts. */
  errors: number;
  /** Answers other than 2xx: each one is a request the server did not serve. */
  non2xx: number;
  latency_ms: { mean: number; p50: number; p90: number; p99: number; max: number };
  /**
   * The server process's CPU (user + system) per answered request during the
   * measured seconds, in microseconds; null without serverPid or /proc.
   * Unlike rps it hardly moves when other work shares the machine.
   */
  server_cpu_us: number | null;
}

export async function cannon(opts: CannonOptions): Promise<CannonFigures> {
  const load = {
    url: `http://127.0.0.1:${opts.port}`,
    connections: opts.connections,
    headers: opts.headers ?? {},
    requests: opts.paths.map((path) => ({ method: 'GET' as const, path })),
  };
  // The warm-up runs on its own, so the server's CPU counted below is the measured seconds' alone.
  if (opts.warmupSeconds > 0) await autocannon({ ...load, duration: opts.warmupSeconds });
  const cpuBefore = opts.serverPid === undefined ? null : processCpuSeconds(opts.serverPid);
  const result = await autocannon({ ...load, duration: opts.seconds });
  const cpuAfter = opts.serverPid === undefined ? null : processCpuSeconds(opts.serverPid);
  const answered = result.requests.total;
  const cpuUs = cpuBefore === null || cpuAfter === null || answered === 0 ? null : ((cpuAfter - cpuBefore) * 1e6) / answered;
  const l = result.latency;
  return {
    rps: round(result.requests.average, 1),
    requests: result.requests.total,
    errors: result.errors,
    non2xx: result.non2xx,
    latency_ms: { mean: round(l.mean, 3), p50: round(l.p50, 3), p90: round(l.p90, 3), p99: round(l.p99, 3), max: round(l.max, 3) },
    server_cpu_us: cpuUs === null ? null : round(cpuUs, 1),
  };
}
