/**
 * The real gateway as a child process, for the fault tests: started with
 * `node server/main.ts` on a data folder, its addresses and startup token
 * read from the banner it prints, and ended the hard way (SIGKILL) or the
 * ordinary way (SIGTERM). Also lists the processes it started (capture,
 * players, a private PulseAudio daemon), so a test can check that a kill
 * leaves none of them running. Imported by server/faults/*.test.ts only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
const NODE = join(REPO_ROOT, 'node_modules', '.bin', 'node');
/** Long enough for a first start on a loaded 2-core machine. */
const START_TIMEOUT_MS = 30_000;
const CONTROL_SECRET = 'faults-control-secret-0123456789';

export interface ChildGateway {
  child: ChildProcess;
  pid: number;
  api: string;
  control: string;
  /** The startup token (all four scopes); re-minted at every start. */
  token: string;
  /** Everything the child printed on stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit signal or code once the process is gone. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface StartChildOptions {
  dataDir: string;
  /** Extra environment (PATH, MAS_FAILPOINTS, MAS_SUMMARY_URL …). */
  env?: NodeJS.ProcessEnv;
  /** Resolve as soon as the process is spawned, without waiting for the banner (kills during startup). */
  noWait?: boolean;
}

export async function startChild(opts: StartChildOptions): Promise<ChildGateway> {
  const child = spawn(
    NODE,
    [
      'server/main.ts',
      `--data-dir=${opts.dataDir}`,
      '--port',
      '0',
      '--control-port',
      '0',
      `--control-secret=${CONTROL_SECRET}`,
      '--enable-api',
    ],
    {
      cwd: REPO_ROOT,
      // A private PulseAudio daemon (never the session's): the test owns what it starts.
      env: { ...process.env, PULSE_SERVER: 'unix:/nonexistent/mas-faults', ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) =>
    child.once('exit', (code, signal) => res({ code, signal })),
  );
  const gw: ChildGateway = { child, pid: child.pid!, api: '', control: '', token: '', output: () => out, exited };
  if (opts.noWait === true) return gw;
  const deadline = Date.now() + START_TIMEOUT_MS;
  let gone = false;
  void exited.then(() => (gone = true));
  while (Date.now() < deadline && !gone) {
    const api = /Automation API\s+(http:\/\/\S+)/.exec(out)?.[1];
    const control = /Control API\s+(http:\/\/\S+)/.exec(out)?.[1];
    const token = /Startup token\s+(\S+)/.exec(out)?.[1];
    if (api !== undefined && control !== undefined && token !== undefined) {
      Object.assign(gw, { api, control, token });
      return gw;
    }
    await sleep(25);
  }
  child.kill('SIGKILL');
  throw new Error(`the gateway did not start: ${out.slice(-2000)}`);
}

/** SIGKILL (no chance to clean up), then wait until the process is gone. */
export async function killHard(gw: ChildGateway): Promise<void> {
  if (gw.child.exitCode === null && gw.child.signalCode === null) gw.child.kill('SIGKILL');
  await gw.exited;
}

/** SIGTERM, the ordinary stop; SIGKILL after 10 s. */
export async function stopChild(gw: ChildGateway): Promise<void> {
  if (gw.child.exitCode !== null || gw.child.signalCode !== null) return;
  gw.child.kill('SIGTERM');
  const timer = setTimeout(() => gw.child.kill('SIGKILL'), 10_000);
  await gw.exited;
  clearTimeout(timer);
}

/** Pids of every live descendant of `pid` (from /proc), with their command names. */
export function descendants(pid: number): { pid: number; comm: string }[] {
  const parentOf = new Map<number, { ppid: number; comm: string }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // pid (comm) state ppid …; comm may hold spaces and parentheses.
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' ');
      if (fields[0] === 'Z') continue; // a zombie is gone, only not yet reaped
      parentOf.set(Number(name), { ppid: Number(fields[1]), comm });
    } catch {
      // the process ended while we looked
    }
  }
  const out: { pid: number; comm: string }[] = [];
  const walk = (p: number) => {
    for (const [child, info] of parentOf) {
      if (info.ppid === p) {
        out.push({ pid: child, comm: info.comm });
        walk(child);
      }
    }
  };
  walk(pid);
  return out;
}

/** Whether a process is still alive (and not a zombie). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls `check` until it returns a value that is not undefined, or throws after `timeoutMs`. */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 30_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/**
 * A parsed JSON reply. Loosely typed on purpose: the tests read many shapes
 * and assert on them, and the gateway's schemas are not what is under test here.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Loose = any;

/** A small JSON client for one running child. */
export function clientFor(gw: ChildGateway) {
  const call = async (
    base: string,
    auth: string,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: Loose }> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { Authorization: `Bearer ${auth}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: res.status, body: parsed };
  };
  return {
    api: (method: string, path: string, body?: unknown, token = gw.token) => call(gw.api, token, method, path, body),
    control: (method: string, path: string, body?: unknown) => call(gw.control, CONTROL_SECRET, method, path, body),
  };
}
