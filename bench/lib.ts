/**
 * The machinery every benchmark shares: the report shape, machine facts,
 * latency statistics, a keep-alive HTTP load loop, and servers started in
 * child processes (so the load generator never shares the server's event loop).
 *
 * Benchmarks measure and report; they never assert a speed. Targets are
 * reported with met: true/false.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { cpus, platform, arch, totalmem } from 'node:os';
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';

// ── Report ─────────────────────────────────────────────────────────────────

export interface Machine {
  cpus: number;
  cpu_model: string;
  node: string;
  platform: string;
  arch: string;
  total_mem_mb: number;
}

export interface Target {
  /** What the figure is compared with, e.g. ">= 0.9". */
  target: string;
  value: number | null;
  met: boolean;
}

export interface BenchReport {
  generated_at: string;
  machine: Machine;
  /** How the run was configured (durations, connections, sizes). */
  config: Record<string, unknown>;
  benchmarks: Record<string, unknown>;
  ratios: Record<string, number | null>;
  /**
   * What each ratio is measured against (ratio name → the baseline figure),
   * when the name alone does not say it. run.ts fills the rest in from the
   * `<figure>_vs_<baseline>` naming.
   */
  baselines?: Record<string, string>;
  targets: Record<string, Target>;
}

export interface BenchRunOptions {
  /** A tiny run that proves the machinery works (tests): fractions of a second, few requests, small stores. */
  tiny: boolean;
  /** Progress lines (stderr by default). */
  log: (line: string) => void;
  /** A benchmark's own options from the command line (--scripts, --scenes, --voices, --long of bench/quality.ts). */
  options?: Record<string, string>;
}

/** What each bench file exports; run.ts finds it by name. */
export interface BenchModule {
  run(opts: BenchRunOptions): Promise<BenchReport>;
  /** A short human table of the report. */
  table(report: BenchReport): string;
  /** The figures as Markdown tables for reports/bench.md; without it the text table goes in a code block. */
  markdown?(report: BenchReport): string;
  /**
   * Charts of the report (bench/charts.ts). run.ts writes each to
   * reports/charts/<benchmark>-<name>.svg and links it from bench.md.
   */
  charts?(report: BenchReport): Chart[];
  /** A page of its own, written by run.ts as reports/bench-<name>.md beside the JSON. */
  reportMarkdown?(report: BenchReport): string;
}

export interface Chart {
  /** File-name part: lowercase letters, digits and dashes. */
  name: string;
  title: string;
  svg: string;
}

export function machine(): Machine {
  const list = cpus();
  return {
    cpus: list.length,
    cpu_model: list[0]?.model.trim() ?? 'unknown',
    node: process.version,
    platform: platform(),
    arch: arch(),
    total_mem_mb: Math.round(totalmem() / 2 ** 20),
  };
}

/** A target met when value >= min (or <= max); a missing value never meets it. */
export function target(value: number | null, rule: { min: number } | { max: number }): Target {
  if ('min' in rule) return { target: `>= ${rule.min}`, value, met: value !== null && value >= rule.min };
  return { target: `<= ${rule.max}`, value, met: value !== null && value <= rule.max };
}

export function ratio(a: number | null | undefined, b: number | null | undefined): number | null {
  if (a === null || a === undefined || b === null || b === undefined || b === 0) return null;
  return round(a / b, 3);
}

export function round(n: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** The median of a sample (the mean of the middle two for an even count); null for an empty one. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Best (highest, or lowest with `lower`) and median of the rounds of one figure, and the rounds themselves. */
export interface Rounds {
  best: number | null;
  median: number | null;
  rounds: number[];
}

export function rounds(values: readonly number[], digits = 3, lower = false): Rounds {
  const best = values.length === 0 ? null : lower ? Math.min(...values) : Math.max(...values);
  const mid = median(values);
  return {
    best: best === null ? null : round(best, digits),
    median: mid === null ? null : round(mid, digits),
    rounds: values.map((v) => round(v, digits)),
  };
}

// ── Latency statistics ─────────────────────────────────────────────────────

export interface LatencyStats {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentile of an ascending array; NaN for an empty one. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

/** Statistics in milliseconds, rounded to microseconds. */
export function latencyStats(samplesMs: readonly number[]): LatencyStats {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const sum = sorted.reduce((s, v) => s + v, 0);
  const r = (n: number): number => (Number.isFinite(n) ? round(n, 3) : Number.NaN);
  return {
    count: sorted.length,
    mean: r(sorted.length === 0 ? Number.NaN : sum / sorted.length),
    p50: r(percentile(sorted, 50)),
    p90: r(percentile(sorted, 90)),
    p99: r(percentile(sorted, 99)),
    max: r(sorted.at(-1) ?? Number.NaN),
  };
}

// ── Load loop ──────────────────────────────────────────────────────────────

export interface LoadOptions {
  port: number;
  /** A fixed path, or one chosen per request (for a query mix). */
  path: string | ((i: number) => string);
  headers?: Record<string, string>;
  connections: number;
  warmupMs: number;
  durationMs: number;
  /** Stop early after this many measured requests. */
  maxRequests: number;
  /** The status every answer must have; anything else counts as an error. */
  expectStatus?: number;
}

export interface LoadResult {
  connections: number;
  requests: number;
  errors: number;
  duration_s: number;
  rps: number;
  latency_ms: LatencyStats;
  /** Latency samples per path label, when the path is a function returning labelled paths. */
  samples: { path: string; ms: number }[];
}

/**
 * Drives N concurrent keep-alive connections for a warm-up, then for the
 * measured duration (or until maxRequests), timing each request from write
 * to the end of its response with process.hrtime.bigint().
 */
export async function load(opts: LoadOptions): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.connections, maxFreeSockets: opts.connections });
  const pathOf = typeof opts.path === 'function' ? opts.path : () => opts.path as string;
  const expect = opts.expectStatus ?? 200;
  let counter = 0;
  try {
    // Warm-up: same loop, nothing recorded.
    await phase(opts.warmupMs, Number.MAX_SAFE_INTEGER, () => undefined);

    const samples: { path: string; ms: number }[] = [];
    let errors = 0;
    const started = process.hrtime.bigint();
    await phase(opts.durationMs, opts.maxRequests, (path, ms, ok) => {
      samples.push({ path, ms });
      if (!ok) errors += 1;
    });
    const elapsedS = Number(process.hrtime.bigint() - started) / 1e9;
    return {
      connections: opts.connections,
      requests: samples.length,
      errors,
      duration_s: round(elapsedS, 3),
      rps: round(samples.length / elapsedS, 1),
      latency_ms: latencyStats(samples.map((s) => s.ms)),
      samples,
    };
  } finally {
    agent.destroy();
  }

  async function phase(durationMs: number, max: number, record: (path: string, ms: number, ok: boolean) => void): Promise<void> {
    const deadline = Date.now() + durationMs;
    let issued = 0;
    const worker = async (): Promise<void> => {
      while (Date.now() < deadline && issued < max) {
        issued += 1;
        const path = pathOf(counter++);
        const t0 = process.hrtime.bigint();
        const status = await get(agent, opts.port, path, opts.headers ?? {});
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        record(path, ms, status === expect);
      }
    };
    await Promise.all(Array.from({ length: opts.connections }, worker));
  }
}

function get(agent: http.Agent, port: number, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    req.on('error', () => resolve(0));
  });
}

// ── Servers in child processes ─────────────────────────────────────────────

/** What a bench server sends over IPC once it listens. */
export interface ServerReady {
  ready: true;
  port: number;
  [key: string]: unknown;
}

export interface ChildServer {
  info: ServerReady;
  /** The child's process id (for /proc sampling). */
  pid: number;
  /**
   * Sends a command to a script that serves commands (serveCommands) and
   * resolves with its answer; rejects with the script's error, or when the
   * child exits or does not answer within `timeoutMs`.
   */
  call<T = unknown>(cmd: string, payload?: Record<string, unknown>, timeoutMs?: number): Promise<T>;
  stop(): Promise<void>;
}

export interface StartServerOptions {
  /** Node options for the child, e.g. ['--expose-gc']. */
  execArgv?: string[];
}

/**
 * Starts a server script in its own Node process (the same node binary) and
 * waits for its ready message. The script gets `arg` as JSON in argv[2].
 */
export async function startServer(
  script: string,
  arg: unknown = {},
  timeoutMs = 600_000,
  opts: StartServerOptions = {},
): Promise<ChildServer> {
  const child: ChildProcess = fork(script, [JSON.stringify(arg)], {
    execPath: process.execPath,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    ...(opts.execArgv !== undefined ? { execArgv: opts.execArgv } : {}),
  });
  const info = await new Promise<ServerReady>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} did not start within ${timeoutMs} ms`));
    }, timeoutMs);
    child.once('message', (msg) => {
      clearTimeout(timer);
      resolve(msg as ServerReady);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited before it was ready (code ${code}, signal ${signal})`));
    });
  });
  let nextId = 0;
  return {
    info,
    pid: child.pid ?? 0,
    call: <T>(cmd: string, payload: Record<string, unknown> = {}, callTimeoutMs = 120_000) =>
      new Promise<T>((resolve, reject) => {
        const id = ++nextId;
        const done = (): void => {
          clearTimeout(timer);
          child.off('message', onMessage);
          child.off('exit', onExit);
        };
        const onMessage = (msg: unknown): void => {
          const m = msg as CommandReply | null;
          if (m?.reply !== id) return;
          done();
          if (m.error !== undefined) reject(new Error(`${script}: ${cmd}: ${m.error}`));
          else resolve(m.result as T);
        };
        const onExit = (): void => {
          done();
          reject(new Error(`${script} exited during ${cmd}`));
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`${script} did not answer ${cmd} within ${callTimeoutMs} ms`));
        }, callTimeoutMs);
        child.on('message', onMessage);
        child.once('exit', onExit);
        child.send({ id, cmd, ...payload });
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          resolve();
          return;
        }
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

interface CommandReply {
  reply: number;
  result?: unknown;
  error?: string;
}

/**
 * For server scripts: answers the commands ChildServer.call sends. A handler
 * may be async; a thrown error goes back as the call's rejection.
 */
export function serveCommands(handlers: Record<string, (msg: Record<string, unknown>) => unknown>): void {
  process.on('message', (raw) => {
    const msg = raw as ({ id?: number; cmd?: string } & Record<string, unknown>) | null;
    if (typeof msg?.id !== 'number' || typeof msg.cmd !== 'string') return;
    const id = msg.id;
    const handler = handlers[msg.cmd];
    const reply = (r: Omit<CommandReply, 'reply'>): void => {
      process.send?.({ reply: id, ...r });
    };
    if (handler === undefined) {
      reply({ error: `unknown command ${msg.cmd}` });
      return;
    }
    Promise.resolve()
      .then(() => handler(msg))
      .then(
        (result) => reply({ result }),
        (err: unknown) => reply({ error: err instanceof Error ? err.message : String(err) }),
      );
  });
}

// ── Process figures from /proc (Linux) ─────────────────────────────────────

/** A `Vm…:` line of /proc/<pid>/status in bytes (VmRSS, VmHWM), or null when unreadable. */
export function procStatusBytes(pid: number | 'self', field: 'VmRSS' | 'VmHWM'): number | null {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m === null ? null : Number(m[1]) * 1024;
  } catch {
    return null;
  }
}

/** Resets the peak RSS (VmHWM) of one of our processes to its current RSS (clear_refs 5); false when not possible. */
export function resetPeakRss(pid: number | 'self'): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

const CLOCK_TICKS = 100; // USER_HZ on Linux

/**
 * CPU seconds of this process plus its children that have ended and been
 * waited for (utime + stime + cutime + cstime of /proc/self/stat), so a tool
 * run as a child process is counted once it exits. Falls back to this
 * process alone where /proc is missing.
 */
export function cpuSecondsWithChildren(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / CLOCK_TICKS; // fields 14–17 of proc(5)
  } catch {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  }
}

/**
 * CPU seconds (user + system) another process has used so far, from
 * /proc/<pid>/stat; null where it cannot be read. A server's CPU per request
 * is a figure a busy machine barely moves, unlike its requests per second.
 */
export function processCpuSeconds(pid: number, opts: { withChildren?: boolean } = {}): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14–15 of proc(5): utime, stime; 16–17: cutime, cstime (its children that have ended and been waited for).
    const own = Number(f[11]) + Number(f[12]);
    return (opts.withChildren === true ? own + Number(f[13]) + Number(f[14]) : own) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/** For server scripts: the JSON argument, and the ready message. */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the shape it parses
export function serverArg<T>(): T {
  return JSON.parse(process.argv[2] ?? '{}') as T;
}

export function announce(ready: ServerReady, close: () => void): void {
  process.send?.(ready);
  const quit = (): void => {
    close();
    process.exit(0);
  };
  process.on('SIGTERM', quit);
  process.on('disconnect', quit);
}

// ── Printing ───────────────────────────────────────────────────────────────

export function formatRows(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ')).join('\n');
}

export function fmt(n: number | null | undefined, digits = 2): string {
  return n === null || n === undefined || Number.isNaN(n) ? '–' : n.toFixed(digits);
}

// ── Command lines ──────────────────────────────────────────────────────────

/**
 * The bench scripts' flags, read by node:util parseArgs (strict: no
 * positionals, no unknown flags; `--flag value` and `--flag=value` alike).
 * Its errors are turned into one line that ends with the script's usage.
 */
export function readFlags<T extends ParseArgsOptionsConfig>(argv: readonly string[], options: T, usage: string) {
  // A script whose options name help answers it itself (with more than the usage line).
  if (!('help' in options) && (argv.includes('--help') || argv.includes('-h'))) throw new UsageAsked(usage);
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    const message = err instanceof Error ? err.message : String(err);
    const name = /'([^']+)'/.exec(message)?.[1] ?? '';
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL')
      throw new FlagError(`unknown argument ${name.split(' ')[0] ?? name}; use ${usage}`, { cause: err });
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE')
      throw new FlagError(`${message.split('\n')[0] ?? message}; use ${usage}`, { cause: err });
    throw err;
  }
}

/** A command line the script cannot run with: runCli prints the message alone and exits with 2. */
export class FlagError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'FlagError';
  }
}

/** `--help`: the script's usage is the answer (runCli prints it and exits with 0). */
class UsageAsked extends Error {
  constructor(usage: string) {
    super(`use ${usage}`);
    this.name = 'UsageAsked';
  }
}

/**
 * Runs a bench script's main: the number it returns is the exit code (0
 * when none). A command line it cannot run with (FlagError, from readFlags
 * or the script's own checks) prints its message alone and exits with 2;
 * anything else is a failure of the benchmark, printed with its stack, exit 1.
 */
export async function runCli(main: () => Promise<unknown>): Promise<void> {
  try {
    const code = await main();
    process.exitCode = typeof code === 'number' ? code : 0;
  } catch (err) {
    if (err instanceof UsageAsked) {
      process.stdout.write(`${err.message}\n`);
      process.exitCode = 0;
    } else if (err instanceof FlagError) {
      process.stderr.write(`${err.message}\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    }
  }
}
