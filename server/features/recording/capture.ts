/**
 * Capture adapters: how the recorder gets 16 kHz mono 16-bit samples out of
 * a device, whatever the device is.
 *
 *   pulse       a virtual device's PulseAudio null sink, read from its monitor
 *               with parec (the same path a real PulseAudio source takes)
 *   in-process  a virtual device where PulseAudio cannot run: its timeline
 *               delivered by a timer (the simulator's device backend)
 *   alsa        a real ALSA capture device (hw:C,D), read with ffmpeg -f alsa
 *
 * open() resolves once the device delivers its first samples ("the capture
 * pipeline is up"); after that, a stream that ends by itself reports it
 * through onError. Tools are looked up before use, so a missing one is
 * CaptureUnavailableError (503 at start, or last_error).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { DeviceType, VirtualDeviceBackend } from '../../adapters/devices.ts';
import { PcmReader } from '../../../common/audio/pcm-reader.ts';
import { findTool, missingToolText } from '../../../common/tools.ts';

export type CaptureTransport = 'pulse' | 'in-process' | 'alsa';

export interface CaptureTarget {
  name: string;
  device_type: DeviceType;
  simulated: boolean;
}

export interface CaptureStream {
  /** The capture process, when there is one. */
  readonly pid: number | null;
  readonly transport: CaptureTransport;
  close(): void;
}

export interface CaptureCallbacks {
  onData(samples: Int16Array): void;
  /** The stream ended or broke after it was up. Called at most once. */
  onError(message: string): void;
}

/** A needed capture tool is missing: 503 service_unavailable at start, or last_error. */
export class CaptureUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CaptureUnavailableError';
  }
}

export interface CaptureOptions {
  /** Where parec and ffmpeg are looked up (PATH); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** How long a device may take to deliver its first samples; default 10 s. */
  openTimeoutMs?: number;
}

export class CaptureBackends {
  readonly #env: NodeJS.ProcessEnv;
  readonly #virtual: VirtualDeviceBackend | null;
  readonly #openTimeoutMs: number;

  constructor(virtual: VirtualDeviceBackend | null, opts: CaptureOptions = {}) {
    this.#virtual = virtual;
    this.#env = opts.env ?? process.env;
    this.#openTimeoutMs = opts.openTimeoutMs ?? 10_000;
  }

  /**
   * What can be known before starting: throws CaptureUnavailableError when
   * the device's capture path needs a tool that is not installed. A virtual
   * device still being set up is checked again when it is opened.
   */
  check(target: CaptureTarget): void {
    if (target.simulated) {
      const vd = this.#virtual?.virtual(target.name) ?? null;
      if (vd === null) throw new CaptureUnavailableError(`the simulated device "${target.name}" has no capture path in this build`);
      if (vd.transport === 'pulse' && findTool('parec', this.#env) === null)
        throw new CaptureUnavailableError(`capture backend missing: ${missingToolText('parec')}`);
      return;
    }
    if (findTool('ffmpeg', this.#env) === null)
      throw new CaptureUnavailableError(`capture backend missing: ${missingToolText('ffmpeg')} (needed to read ALSA devices)`);
    if (target.device_type !== 'input')
      throw new CaptureUnavailableError(
        `the ALSA playback device "${target.name}" cannot be recorded; system audio needs a PulseAudio monitor`,
      );
  }

  /** Opens the device; resolves once its first samples arrived. */
  async open(target: CaptureTarget, cb: CaptureCallbacks, signal: AbortSignal): Promise<CaptureStream> {
    if (!target.simulated) return this.#openAlsa(target, cb, signal);
    if (this.#virtual === null)
      throw new CaptureUnavailableError(`the simulated device "${target.name}" has no capture path in this build`);
    const vd = await this.#virtual.ready(target.name);
    if (signal.aborted) throw new Error('the recording ended while its devices were opening');
    if (vd.transport === 'in-process') {
      return new Promise((resolve) => {
        let up = false;
        const stream = vd.openInProcess((samples) => {
          cb.onData(samples);
          if (!up) {
            up = true;
            resolve({ pid: null, transport: 'in-process', close: () => stream.close() });
          }
        });
      });
    }
    const parec = findTool('parec', this.#env);
    if (parec === null) throw new CaptureUnavailableError(`capture backend missing: ${missingToolText('parec')}`);
    if (vd.monitorSource === null || vd.pulseEnv === null) throw new Error(`the simulated device "${target.name}" has no PulseAudio sink`);
    return spawnCapture({
      transport: 'pulse',
      label: target.name,
      command: parec,
      args: [
        '--raw',
        `--device=${vd.monitorSource}`,
        '--format=s16le',
        '--rate=16000',
        '--channels=1',
        '--latency-msec=100',
        '--client-name=mas-recorder',
      ],
      env: vd.pulseEnv,
      timeoutMs: this.#openTimeoutMs,
      cb,
      signal,
    });
  }

  #openAlsa(target: CaptureTarget, cb: CaptureCallbacks, signal: AbortSignal): Promise<CaptureStream> {
    const ffmpeg = findTool('ffmpeg', this.#env);
    if (ffmpeg === null)
      throw new CaptureUnavailableError(`capture backend missing: ${missingToolText('ffmpeg')} (needed to read ALSA devices)`);
    const hw = /\((hw:\d+,\d+)\)$/.exec(target.name)?.[1];
    if (hw === undefined) throw new Error(`the device "${target.name}" is not an ALSA hw device`);
    return spawnCapture({
      transport: 'alsa',
      label: target.name,
      command: ffmpeg,
      args: ['-nostdin', '-loglevel', 'error', '-f', 'alsa', '-i', hw, '-ac', '1', '-ar', '16000', '-f', 's16le', '-'],
      env: this.#env,
      timeoutMs: this.#openTimeoutMs,
      cb,
      signal,
    });
  }
}

interface SpawnCaptureOptions {
  transport: CaptureTransport;
  label: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  cb: CaptureCallbacks;
  signal: AbortSignal;
}

/** A capture process writing raw samples to stdout; up at its first bytes. */
function spawnCapture(o: SpawnCaptureOptions): Promise<CaptureStream> {
  return new Promise((resolve, reject) => {
    const tool = o.command.split('/').pop() ?? o.command;
    let child: ChildProcess;
    try {
      child = spawn(o.command, o.args, { env: o.env, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (err) {
      reject(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    const reader = new PcmReader();
    let stderr = '';
    let up = false;
    let closed = false;
    let reported = false;
    const stream: CaptureStream = {
      get pid() {
        return child.pid ?? null;
      },
      transport: o.transport,
      close() {
        if (closed) return;
        closed = true;
        clearTimeout(timer);
        o.signal.removeEventListener('abort', onAbort);
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      },
    };
    const fail = (message: string) => {
      stream.close();
      if (!up) reject(new Error(message));
      else if (!reported) {
        reported = true;
        o.cb.onError(message);
      }
    };
    const onAbort = () => fail('the recording ended while its devices were opening');
    o.signal.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(
      () => fail(`the device "${o.label}" delivered no audio within ${Math.round(o.timeoutMs / 1000)} s`),
      o.timeoutMs,
    );
    child.stderr?.on('data', (c: Buffer) => {
      stderr = (stderr + c.toString('utf8')).slice(-2000);
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      if (closed) return;
      const samples = reader.push(chunk);
      if (samples.length > 0) o.cb.onData(samples);
      if (!up) {
        up = true;
        clearTimeout(timer);
        resolve(stream);
      }
    });
    child.once('error', (err: NodeJS.ErrnoException) => {
      fail(err.code === 'ENOENT' ? `capture backend missing: ${missingToolText(tool)}` : `${tool} could not start: ${err.message}`);
    });
    child.once('exit', (code, signal) => {
      if (closed) return;
      const detail = stderr
        .trim()
        .split('\n')
        .filter((l) => l.length > 0)
        .pop();
      fail(
        `capture from the device "${o.label}" stopped: ${tool} exited (${signal ?? `code ${code}`})${detail !== undefined ? `: ${detail}` : ''}`,
      );
    });
  });
}
