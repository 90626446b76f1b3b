/**
 * The sound server's capture streams, followed as events: what the meeting
 * detector (server/features/detection/) learns about which applications
 * record from which source.
 *
 * PulseAudio (and PipeWire's PulseAudio server) announce every change with
 * `pactl subscribe`: one line per event ("Event 'new' on source-output #7").
 * Only source-output events (a capture stream opened, changed or closed)
 * lead to a read of the streams, `pactl --format=json list source-outputs`
 * and `list sources`; nothing runs while no stream changes (no polling).
 * Reads are coalesced: events arriving while one runs cause one more read.
 *
 * Decision: docs/decisions/141-meeting-detector-on-sound-server-events.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { findTool, missingToolText } from '../../common/tools.ts';

/** One capture stream as the detector sees it. */
export interface CaptureStreamInfo {
  /** The source-output index (unique while the server runs). */
  index: number;
  appName: string;
  binary: string;
  /** application.process.id, or null when the client does not say. */
  pid: number | null;
  /** The source it records from. */
  source: SourceInfo;
}

export interface SourceInfo {
  name: string;
  /** The sink whose monitor this source is, or null for a real input. */
  monitorOf: string | null;
  /** ALSA card and device of a hardware source, when the server says. */
  alsa: { card: number; device: number } | null;
}

/** The port the detector depends on (tests give it a fake; the gateway this adapter). */
export interface CaptureStreamWatch {
  /** Starts following; resolves false (and calls nothing) when no sound server answers. */
  start(handlers: WatchHandlers): Promise<boolean>;
  stop(): void;
  /** Process ids of pactl processes running now (tests check them gone). */
  processIds(): number[];
}

export interface WatchHandlers {
  /** Every capture stream now, after each change (and once at start). */
  onStreams(streams: CaptureStreamInfo[]): void;
  /** The sound server went away or pactl ended; no more calls follow. */
  onGone(reason: string): void;
}

/** Parses one `pactl subscribe` line; null for anything that is not an event line. */
export function parseSubscribeLine(line: string): { kind: 'new' | 'change' | 'remove'; facility: string; index: number } | null {
  const m = /^Event '(new|change|remove)' on ([a-z-]+) #(\d+)\s*$/.exec(line.trim());
  if (m === null) return null;
  return { kind: m[1] as 'new' | 'change' | 'remove', facility: m[2]!, index: Number(m[3]) };
}

type Json = Record<string, unknown>;

/** Parses `pactl --format=json list sources` into sources by index. */
export function parseSources(text: string): Map<number, SourceInfo> {
  const out = new Map<number, SourceInfo>();
  for (const s of jsonArray(text)) {
    const props = (s['properties'] ?? {}) as Json;
    const monitor = typeof s['monitor_source'] === 'string' && s['monitor_source'] !== 'n/a' ? s['monitor_source'] : null;
    const card = Number(props['alsa.card']);
    const device = Number(props['alsa.device']);
    out.set(Number(s['index']), {
      name: typeof s['name'] === 'string' ? s['name'] : '',
      monitorOf: monitor,
      alsa: Number.isInteger(card) && Number.isInteger(device) && props['alsa.card'] !== undefined ? { card, device } : null,
    });
  }
  return out;
}

/** Parses `pactl --format=json list source-outputs` against the sources it records from. */
export function parseSourceOutputs(text: string, sources: Map<number, SourceInfo>): CaptureStreamInfo[] {
  const out: CaptureStreamInfo[] = [];
  for (const o of jsonArray(text)) {
    const props = (o['properties'] ?? {}) as Json;
    const source = sources.get(Number(o['source']));
    if (source === undefined) continue; // the source went away between the two reads
    const pid = Number(props['application.process.id']);
    out.push({
      index: Number(o['index']),
      appName: typeof props['application.name'] === 'string' ? props['application.name'] : '',
      binary: typeof props['application.process.binary'] === 'string' ? props['application.process.binary'] : '',
      pid: Number.isInteger(pid) && props['application.process.id'] !== undefined ? pid : null,
      source,
    });
  }
  return out;
}

function jsonArray(text: string): Json[] {
  try {
    const v = JSON.parse(text === '' ? '[]' : text) as unknown;
    return Array.isArray(v) ? v.filter((x): x is Json => typeof x === 'object' && x !== null) : [];
  } catch {
    return [];
  }
}

/** The capture streams of a PulseAudio server, through pactl. */
export class PactlStreamWatch implements CaptureStreamWatch {
  readonly #env: () => NodeJS.ProcessEnv;
  #subscribe: ChildProcess | null = null;
  readonly #reads = new Set<ChildProcess>();
  #reading = false;
  #dirty = false;
  #stopped = false;

  /** `env` is read at each start: where the server is (PULSE_SERVER, XDG_RUNTIME_DIR) and pactl (PATH). */
  constructor(env: () => NodeJS.ProcessEnv = () => process.env) {
    this.#env = env;
  }

  async start(h: WatchHandlers): Promise<boolean> {
    this.#stopped = false;
    const env = this.#env();
    const pactl = findTool('pactl', env);
    if (pactl === null) throw new Error(missingToolText('pactl'));
    if ((await this.#run(pactl, env, ['info'])) === null) return false;
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() may have been called during the await
    if (this.#stopped) return false;
    const child = spawn(pactl, ['subscribe'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    this.#subscribe = child;
    const refresh = () => void this.#refresh(pactl, env, h);
    createInterface({ input: child.stdout }).on('line', (line) => {
      const e = parseSubscribeLine(line);
      if (e !== null && e.facility === 'source-output') refresh();
    });
    child.once('error', () => undefined);
    child.once('exit', (code, signal) => {
      this.#subscribe = null;
      if (!this.#stopped) h.onGone(`pactl subscribe ended (${signal ?? `code ${code}`}): the sound server is gone`);
    });
    refresh(); // the streams already open
    return true;
  }

  stop(): void {
    this.#stopped = true;
    for (const c of [this.#subscribe, ...this.#reads]) if (c !== null && c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
    this.#subscribe = null;
  }

  processIds(): number[] {
    return [this.#subscribe, ...this.#reads].flatMap((c) =>
      c?.pid !== undefined && c.exitCode === null && c.signalCode === null ? [c.pid] : [],
    );
  }

  async #refresh(pactl: string, env: NodeJS.ProcessEnv, h: WatchHandlers): Promise<void> {
    if (this.#reading) {
      this.#dirty = true;
      return;
    }
    this.#reading = true;
    try {
      do {
        this.#dirty = false;
        const sources = await this.#run(pactl, env, ['--format=json', 'list', 'sources']);
        const outputs = await this.#run(pactl, env, ['--format=json', 'list', 'source-outputs']);
        if (this.#stopped) return;
        if (sources !== null && outputs !== null) h.onStreams(parseSourceOutputs(outputs, parseSources(sources)));
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- events during the reads set #dirty
      } while (this.#dirty && !this.#stopped);
    } finally {
      this.#reading = false;
    }
  }

  /** Runs pactl once; its stdout, or null when it fails or takes over 5 s. */
  #run(pactl: string, env: NodeJS.ProcessEnv, args: string[]): Promise<string | null> {
    return new Promise((resolve) => {
      const child = spawn(pactl, args, { env, stdio: ['ignore', 'pipe', 'ignore'] });
      this.#reads.add(child);
      let out = '';
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
      child.once('error', () => {
        clearTimeout(timer);
        this.#reads.delete(child);
        resolve(null);
      });
      child.once('close', (code) => {
        clearTimeout(timer);
        this.#reads.delete(child);
        resolve(code === 0 ? out : null);
      });
    });
  }
}

/**
 * Whether a sound server answers `pactl info` within 3 s (npm run doctor):
 * its name and version as pactl gives them, or null (no pactl, or no server).
 */
export function soundServerAnswers(env: NodeJS.ProcessEnv): Promise<string | null> {
  const pactl = findTool('pactl', env);
  if (pactl === null) return Promise.resolve(null);
  return new Promise((resolve) => {
    const child = spawn(pactl, ['info'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.once('error', () => {
      clearTimeout(timer);
      resolve(null);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      const server = /^Server Name: (.*)$/m.exec(out)?.[1];
      const version = /^Server Version: (.*)$/m.exec(out)?.[1];
      resolve(
        code !== 0 ? null : server === undefined ? 'a sound server answers' : `${server}${version !== undefined ? ` ${version}` : ''}`,
      );
    });
  });
}
