/**
 * A simulated meeting app: a process that holds a capture stream on a
 * simulated microphone for a chosen time, under a chosen application name and
 * binary, the way Zoom, Teams or a browser tab in a call shows itself to the
 * sound server. The device plays its scripted meeting from the moment the
 * call begins (it is cued), so what the app "hears" is the meeting.
 *
 * The process is parec reading the device's sink monitor into nothing;
 * PULSE_PROP gives the stream the app's application.name and
 * application.process.binary (libpulse reads it before filling in its own).
 * An optional drop closes the stream for a while mid-call and opens it again,
 * as an app does when it switches devices or reconnects.
 *
 * Reached through the Control API (POST /control/meeting-apps) and the
 * simulator CLI (devices meeting-app). Decision: docs/decisions/141.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { findTool, missingToolText } from '../../common/tools.ts';
import { killQuietly } from './pulse-server.ts';

/** What a meeting app needs of the device: the port's handle (common/devices.ts). */
export interface MeetingAppDevice {
  readonly transport: 'pulse' | 'in-process' | null;
  readonly monitorSource: string | null;
  readonly pulseEnv: NodeJS.ProcessEnv | null;
  cue(): void;
}

export interface MeetingAppSpec {
  device: string;
  app_name: string;
  binary: string;
  seconds: number;
  /** Closes the stream `after` seconds into the call, for `seconds`, then opens it again. */
  drop?: { after: number; seconds: number } | null;
}

export type MeetingAppState = 'in-call' | 'dropped' | 'ended' | 'failed';

export interface MeetingAppView extends Required<MeetingAppSpec> {
  id: string;
  state: MeetingAppState;
  error: string | null;
  started_at: string;
  /** Process ids of the capture streams it opened (the first, and the one after a drop). */
  pids: number[];
}

/** A PulseAudio proplist value, quoted: no quote or backslash survives. */
function propValue(text: string): string {
  return `"${text.replace(/["\\]/g, '_')}"`;
}

export class MeetingApp {
  readonly id: string;
  readonly spec: Required<MeetingAppSpec>;
  readonly #device: MeetingAppDevice;
  readonly #startedAt = new Date();
  readonly #timers: NodeJS.Timeout[] = [];
  readonly #children: ChildProcess[] = [];
  #child: ChildProcess | null = null;
  #state: MeetingAppState = 'in-call';
  #error: string | null = null;
  readonly #ended: Promise<void>;
  #resolveEnded: () => void = () => undefined;

  /** Starts the call at once; throws when the device has no PulseAudio stream to capture from. */
  constructor(id: string, spec: MeetingAppSpec, device: MeetingAppDevice) {
    this.id = id;
    this.spec = { ...spec, drop: spec.drop ?? null };
    this.#device = device;
    if (device.transport !== 'pulse' || device.monitorSource === null || device.pulseEnv === null)
      throw new Error(`the simulated device "${spec.device}" runs without PulseAudio: a meeting app needs a sound server to capture from`);
    if (findTool('parec', device.pulseEnv) === null) throw new Error(missingToolText('parec'));
    this.#ended = new Promise((resolve) => (this.#resolveEnded = resolve));
    device.cue();
    this.#open();
    const drop = this.spec.drop;
    if (drop !== null && drop.after < spec.seconds) {
      this.#timers.push(
        setTimeout(() => this.#drop(), drop.after * 1000),
        setTimeout(() => this.#reopen(), (drop.after + drop.seconds) * 1000),
      );
    }
    this.#timers.push(setTimeout(() => this.stop(), spec.seconds * 1000));
  }

  /** Resolves when the call has ended (its time is up, stop(), or its stream failed). */
  ended(): Promise<void> {
    return this.#ended;
  }

  view(): MeetingAppView {
    return {
      id: this.id,
      ...this.spec,
      state: this.#state,
      error: this.#error,
      started_at: this.#startedAt.toISOString(),
      pids: this.#children.flatMap((c) => (c.pid !== undefined ? [c.pid] : [])),
    };
  }

  /** Process ids that may still run. */
  processIds(): number[] {
    return this.#children.flatMap((c) => (c.pid !== undefined && c.exitCode === null && c.signalCode === null ? [c.pid] : []));
  }

  /** Hangs up: the stream closes, the call ends. */
  stop(): void {
    this.#finish('ended', null);
  }

  #open(): void {
    const env = {
      ...this.#device.pulseEnv,
      PULSE_PROP: `application.name=${propValue(this.spec.app_name)} application.process.binary=${propValue(this.spec.binary)}`,
    };
    const child = spawn(
      findTool('parec', env) ?? 'parec',
      [
        '--raw',
        `--device=${this.#device.monitorSource}`,
        // pacat names the client after itself unless told: the app's name goes here too.
        `--client-name=${this.spec.app_name}`,
        `--stream-name=${this.spec.app_name} call`,
        '--format=s16le',
        '--rate=16000',
        '--channels=1',
        '--latency-msec=100',
      ],
      { env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString('utf8')).slice(-500)));
    child.once('error', (err) => this.#finish('failed', `the meeting app's capture could not start: ${err.message}`));
    child.once('exit', (code, signal) => {
      if (this.#child !== child) return; // closed on purpose
      this.#finish('failed', `the meeting app's capture stopped (${signal ?? `code ${code}`}): ${stderr.trim().split('\n').pop() ?? ''}`);
    });
    this.#child = child;
    this.#children.push(child);
  }

  #drop(): void {
    if (this.#state !== 'in-call') return;
    this.#state = 'dropped';
    const child = this.#child;
    this.#child = null;
    if (child !== null) killQuietly(child, 'SIGTERM');
  }

  #reopen(): void {
    if (this.#state !== 'dropped') return;
    this.#state = 'in-call';
    this.#open();
  }

  #finish(state: 'ended' | 'failed', error: string | null): void {
    if (this.#state === 'ended' || this.#state === 'failed') return;
    this.#state = state;
    this.#error = error;
    for (const t of this.#timers) clearTimeout(t);
    const child = this.#child;
    this.#child = null;
    if (child !== null) killQuietly(child, 'SIGTERM');
    this.#resolveEnded();
  }
}
