/**
 * A PulseAudio server for the virtual devices: the one the session already
 * has (PULSE_SERVER or the default socket), or, when none is reachable, a
 * private daemon this process starts and owns.
 *
 * The private daemon runs as a plain user-mode daemon with everything in a
 * temporary folder: its configuration, a native-protocol socket (anonymous
 * auth, so no cookie is needed), its runtime and state folders. Nothing of the
 * user's own PulseAudio setup is read or written.
 *
 * Nothing is left running: stop() ends the daemon by its pid; a handler on
 * process exit does the same; and the daemon runs with a short idle timeout
 * while a "keepalive" client (a pacat reading our stdin pipe) holds it, so
 * even if this process is killed outright, the keepalive sees end-of-file,
 * disconnects, and the daemon exits by itself a few seconds later.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findTool, missingToolText } from '../../common/tools.ts';

type PulseMode = 'auto' | 'private';

export interface PulseServerOptions {
  /** auto (default): use a reachable server, else start a private one; private: always start one. */
  mode?: PulseMode;
  env?: NodeJS.ProcessEnv;
  /** Tool names or paths; default found on PATH. */
  tools?: { pulseaudio?: string; pactl?: string; pacat?: string };
  /** How long a private daemon may take to answer; default 8 s. */
  startTimeoutMs?: number;
  /** Seconds a private daemon stays without clients before it exits by itself; default 5. */
  idleExitSeconds?: number;
}

/** PulseAudio cannot be used here: a tool is missing, or the daemon does not start. */
export class PulseUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PulseUnavailableError';
  }
}

/** Daemons owned by this process, ended when it exits whatever the reason. */
const OWNED_PIDS = new Set<number>();
let exitHookInstalled = false;
function ownPid(pid: number): void {
  OWNED_PIDS.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const p of OWNED_PIDS) {
      try {
        process.kill(p, 'SIGTERM');
      } catch {
        // already gone
      }
    }
  });
}

export class PulseServer {
  /** true for a private daemon this process started; false for the session's own server. */
  readonly owned: boolean;
  /** The environment pactl, pacat and parec need to reach this server. */
  readonly clientEnv: NodeJS.ProcessEnv;
  readonly tools: { pactl: string; pacat: string };
  readonly #daemon: ChildProcess | null;
  readonly #keepalive: ChildProcess | null;
  readonly #dir: string | null;
  readonly #modules = new Set<number>();
  /** Short-lived helper processes (monitor warm-ups) still running. */
  readonly #helpers = new Set<ChildProcess>();
  readonly #exitListeners = new Set<(reason: string) => void>();
  #alive = true;
  #stopping = false;
  readonly #exited: Promise<void>;

  private constructor(init: {
    owned: boolean;
    clientEnv: NodeJS.ProcessEnv;
    tools: { pactl: string; pacat: string };
    daemon: ChildProcess | null;
    keepalive: ChildProcess | null;
    dir: string | null;
    stderr: () => string;
  }) {
    this.owned = init.owned;
    this.clientEnv = init.clientEnv;
    this.tools = init.tools;
    this.#daemon = init.daemon;
    this.#keepalive = init.keepalive;
    this.#dir = init.dir;
    const daemon = init.daemon;
    this.#exited =
      daemon === null || daemon.exitCode !== null || daemon.signalCode !== null
        ? Promise.resolve()
        : new Promise((resolve) => daemon.once('exit', () => resolve()));
    daemon?.once('exit', (code, signal) => {
      this.#alive = false;
      if (daemon.pid !== undefined) OWNED_PIDS.delete(daemon.pid);
      if (!this.#stopping) {
        const tail = init.stderr().trim().split('\n').slice(-3).join(' | ');
        const reason = `the PulseAudio daemon exited (${signal ?? `code ${code}`})${tail !== '' ? `: ${tail}` : ''}`;
        for (const l of this.#exitListeners) l(reason);
      }
      this.#cleanupDir();
    });
  }

  /** Connects to a reachable server, or starts a private daemon. Throws PulseUnavailableError when neither works. */
  static async start(opts: PulseServerOptions = {}): Promise<PulseServer> {
    const env = opts.env ?? process.env;
    const pactl = findTool(opts.tools?.pactl ?? 'pactl', env);
    const pacat = findTool(opts.tools?.pacat ?? 'pacat', env);
    if (pactl === null) throw new PulseUnavailableError(missingToolText('pactl'));
    if (pacat === null) throw new PulseUnavailableError(missingToolText('pacat'));
    const tools = { pactl, pacat };

    if ((opts.mode ?? 'auto') === 'auto' && (await reachable(pactl, env, 1500))) {
      return new PulseServer({ owned: false, clientEnv: { ...env }, tools, daemon: null, keepalive: null, dir: null, stderr: () => '' });
    }
    return PulseServer.#startPrivate(opts, env, tools);
  }

  static async #startPrivate(
    opts: PulseServerOptions,
    env: NodeJS.ProcessEnv,
    tools: { pactl: string; pacat: string },
  ): Promise<PulseServer> {
    const binary = findTool(opts.tools?.pulseaudio ?? 'pulseaudio', env);
    if (binary === null) throw new PulseUnavailableError(missingToolText('pulseaudio'));
    const dir = mkdtempSync(join(tmpdir(), 'mas-pulse-'));
    const socket = join(dir, 'native');
    const script = [
      `load-module module-native-protocol-unix socket=${socket} auth-anonymous=1`,
      // The keepalive client plays nothing into this sink; it also keeps the default sink off real hardware.
      'load-module module-null-sink sink_name=mas_keepalive format=s16le rate=16000 channels=1 ' +
        'sink_properties=device.description=keepalive',
      'set-default-sink mas_keepalive',
      '',
    ].join('\n');
    writeFileSync(join(dir, 'daemon.pa'), script, { mode: 0o600 });
    const daemonEnv: NodeJS.ProcessEnv = {
      PATH: env['PATH'] ?? '/usr/bin:/bin',
      HOME: dir,
      PULSE_RUNTIME_PATH: join(dir, 'runtime'),
      PULSE_STATE_PATH: join(dir, 'state'),
      XDG_RUNTIME_DIR: join(dir, 'xdg'),
      XDG_CONFIG_HOME: join(dir, 'config'),
      LANG: 'C',
    };
    const clientEnv: NodeJS.ProcessEnv = {
      ...env,
      PULSE_SERVER: `unix:${socket}`,
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, 'config'),
      PULSE_RUNTIME_PATH: join(dir, 'runtime'),
    };
    delete clientEnv['PULSE_COOKIE'];

    const daemon = spawn(
      binary,
      [
        '--daemonize=no',
        '--system=false',
        `--exit-idle-time=${opts.idleExitSeconds ?? 5}`,
        '--disallow-exit=false',
        '--use-pid-file=false',
        '--realtime=false',
        '--high-priority=false',
        '--log-target=stderr',
        '--log-level=error',
        '-n',
        '-F',
        join(dir, 'daemon.pa'),
      ],
      { env: daemonEnv, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    daemon.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-4000);
    });
    const spawnError = new Promise<Error>((resolve) => daemon.once('error', resolve));
    if (daemon.pid !== undefined) ownPid(daemon.pid);

    const deadline = Date.now() + (opts.startTimeoutMs ?? 8000);
    let up = false;
    while (Date.now() < deadline) {
      const failed = await Promise.race([spawnError, delay(60).then(() => null)]);
      if (failed !== null) {
        rmSync(dir, { recursive: true, force: true });
        throw new PulseUnavailableError(`the PulseAudio daemon could not start: ${failed.message}`, { cause: failed });
      }
      if (daemon.exitCode !== null || daemon.signalCode !== null) break;
      if (await reachable(tools.pactl, clientEnv, 1000)) {
        up = true;
        break;
      }
    }
    if (!up) {
      killQuietly(daemon, 'SIGKILL');
      if (daemon.pid !== undefined) OWNED_PIDS.delete(daemon.pid);
      rmSync(dir, { recursive: true, force: true });
      const tail = stderr.trim().split('\n').slice(-3).join(' | ');
      throw new PulseUnavailableError(`the PulseAudio daemon did not start${tail !== '' ? `: ${tail}` : ''}`);
    }

    const keepalive = spawn(
      tools.pacat,
      ['--playback', '--raw', '--device=mas_keepalive', '--format=s16le', '--rate=16000', '--channels=1', '--client-name=mas-keepalive'],
      {
        env: clientEnv,
        stdio: ['pipe', 'ignore', 'ignore'],
      },
    );
    keepalive.on('error', () => undefined);
    keepalive.stdin.on('error', () => undefined);
    return new PulseServer({ owned: true, clientEnv, tools, daemon, keepalive, dir, stderr: () => stderr });
  }

  get alive(): boolean {
    return this.#alive;
  }

  /** The private daemon's process id, or null for the session's own server. */
  get pid(): number | null {
    return this.#daemon?.pid ?? null;
  }

  /** Process ids this server object started (daemon, keepalive) and that may still run. */
  processIds(): number[] {
    return [this.#daemon, this.#keepalive, ...this.#helpers].flatMap((p) =>
      p?.pid !== undefined && p.exitCode === null && p.signalCode === null ? [p.pid] : [],
    );
  }

  /** Called once if the daemon dies while in use (not on stop()). */
  onExit(listener: (reason: string) => void): () => void {
    this.#exitListeners.add(listener);
    return () => this.#exitListeners.delete(listener);
  }

  /** Runs pactl against this server; rejects with pactl's own message on failure. */
  pactl(args: readonly string[], timeoutMs = 5000): Promise<string> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.tools.pactl, args, { env: this.clientEnv, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      const timer = setTimeout(() => killQuietly(child, 'SIGKILL'), timeoutMs);
      child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
      child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
      child.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      child.once('close', (code) => {
        clearTimeout(timer);
        if (code === 0) resolve(out.trim());
        else
          reject(
            new Error(`pactl ${args[0] ?? ''} failed: ${(err.trim() || out.trim() || `exit ${code}`).split('\n').slice(-2).join(' ')}`),
          );
      });
    });
  }

  /** Loads a 16 kHz mono null sink and returns its module index; its monitor source is `<sinkName>.monitor`. */
  async loadNullSink(sinkName: string, description: string): Promise<number> {
    const safeDescription = description.replace(/[^A-Za-z0-9 ._:()-]/g, '_');
    const out = await this.pactl([
      'load-module',
      'module-null-sink',
      `sink_name=${sinkName}`,
      'format=s16le',
      'rate=16000',
      'channels=1',
      `sink_properties='device.description="${safeDescription}"'`,
    ]);
    const index = Number(out.split('\n').pop());
    if (!Number.isInteger(index)) throw new Error(`pactl load-module gave no module index: ${out.slice(0, 80)}`);
    this.#modules.add(index);
    return index;
  }

  /** The index of a sink by name, or null. */
  async sinkIndex(sinkName: string): Promise<number | null> {
    const rows = (await this.pactl(['list', 'short', 'sinks'])).split('\n').map((r) => r.split('\t'));
    const row = rows.find((r) => r[1] === sinkName);
    return row === undefined ? null : Number(row[0]);
  }

  /** How many playback streams a sink has. */
  async sinkInputs(sinkIndex: number): Promise<number> {
    const rows = (await this.pactl(['list', 'short', 'sink-inputs'])).split('\n').map((r) => r.split('\t'));
    return rows.filter((r) => Number(r[1]) === sinkIndex).length;
  }

  /** Resolves once the sink has a playback stream, or rejects after `timeoutMs`. */
  async waitForSinkInput(sinkName: string, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const index = await this.sinkIndex(sinkName);
    if (index === null) throw new Error(`there is no sink ${sinkName}`);
    while (Date.now() < deadline) {
      if ((await this.sinkInputs(index)) > 0) return;
      await delay(20);
    }
    throw new Error(`no playback stream reached the sink ${sinkName} within ${timeoutMs} ms`);
  }

  /**
   * Resolves once a monitor source delivers audio (parec's first bytes), or
   * rejects after `timeoutMs`. A null sink that has just started playing
   * renders its first block only after about 2 s; until then its monitor is
   * silent and its playback streams are not consumed.
   */
  waitForMonitorData(source: string, parec: string, timeoutMs = 6000): Promise<number> {
    return new Promise((resolve, reject) => {
      const t0 = performance.now();
      const child = spawn(parec, ['--raw', `--device=${source}`, '--format=s16le', '--rate=16000', '--channels=1', '--latency-msec=20'], {
        env: this.clientEnv,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      this.#helpers.add(child);
      const done = (err: Error | null) => {
        clearTimeout(timer);
        killQuietly(child, 'SIGTERM');
        if (err === null) resolve(performance.now() - t0);
        else reject(err);
      };
      const timer = setTimeout(() => done(new Error(`the monitor ${source} gave no audio within ${timeoutMs} ms`)), timeoutMs);
      child.once('exit', () => this.#helpers.delete(child));
      child.once('error', (e) => done(e));
      child.stdout.once('data', () => done(null));
    });
  }

  async unloadModule(index: number): Promise<void> {
    this.#modules.delete(index);
    if (!this.#alive) return;
    await this.pactl(['unload-module', String(index)]).catch(() => undefined);
  }

  /**
   * Ends what this object started: the private daemon and its keepalive (by
   * pid), or, on the session's own server, the modules it loaded. Synchronous.
   */
  stop(): void {
    if (this.#stopping) return;
    this.#stopping = true;
    for (const helper of this.#helpers) killQuietly(helper, 'SIGTERM');
    if (this.#keepalive !== null) {
      this.#keepalive.stdin?.destroy();
      killQuietly(this.#keepalive, 'SIGTERM');
    }
    if (this.#daemon !== null) {
      killQuietly(this.#daemon, 'SIGTERM');
      const daemon = this.#daemon;
      // A daemon that ignores SIGTERM for 2 s is killed.
      setTimeout(() => killQuietly(daemon, 'SIGKILL'), 2000).unref();
    } else if (this.#alive) {
      for (const index of this.#modules)
        spawnSync(this.tools.pactl, ['unload-module', String(index)], { env: this.clientEnv, stdio: 'ignore', timeout: 3000 });
    }
    this.#modules.clear();
    this.#alive = false;
  }

  /** Resolves once the private daemon has exited (at once for the session's server). */
  async stopped(): Promise<void> {
    const keepalive = this.#keepalive;
    await Promise.all([
      this.#exited,
      keepalive === null || keepalive.exitCode !== null || keepalive.signalCode !== null
        ? undefined
        : new Promise((resolve) => keepalive.once('exit', resolve)),
    ]);
    this.#cleanupDir();
  }

  #cleanupDir(): void {
    if (this.#dir !== null) rmSync(this.#dir, { recursive: true, force: true });
  }
}

/** Whether `pactl info` answers within the time given. */
function reachable(pactl: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(pactl, ['info'], { env, stdio: 'ignore' });
    const timer = setTimeout(() => killQuietly(child, 'SIGKILL'), timeoutMs);
    child.once('error', () => {
      clearTimeout(timer);
      resolve(false);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve(code === 0);
    });
  });
}

export function killQuietly(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    child.kill(signal);
  } catch {
    // already gone
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
