/**
 * Plays a device's timeline into its PulseAudio null sink with pacat, in real
 * time: a 20 ms timer writes whatever wall time says is due, one second ahead,
 * so pacat never runs dry. The stream never stops while the device is plugged
 * in (silence is written as samples), so whoever records the sink's monitor
 * sees one continuous stream.
 *
 * Why so much buffering: a playback stream that underruns is not caught up
 * (the samples that arrive late are played late), so every underrun would
 * shift the device's audio for good. With a 60 ms stream buffer this happened
 * every few seconds on a loaded two-core machine (pacat not scheduled in
 * time); with 500 ms of stream buffer and 1 s of lead it did not happen in
 * minutes of playing (docs/decisions/018-virtual-devices.md). Latency does
 * not matter to a recorder; gaps do.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { killQuietly } from './pulse-server.ts';
import { DEVICE_SAMPLE_RATE, pcmBytes, samplesDue, type PlayTimeline } from './timeline.ts';

const TICK_MS = 20;
/** Samples kept queued ahead of wall time. */
const PLAYER_LEAD_MS = 1000;
const LEAD_SAMPLES = (DEVICE_SAMPLE_RATE * PLAYER_LEAD_MS) / 1000;
/** pacat's stream buffer (its target latency). */
const STREAM_LATENCY_MS = 500;
/** Silence written at spawn, so the stream starts (a stream with nothing to play stays in prebuffering). */
const PRIME_SAMPLES = DEVICE_SAMPLE_RATE / 10;

export interface PacatPlayerOptions {
  pacat: string;
  env: NodeJS.ProcessEnv;
  sink: string;
  timeline: PlayTimeline;
  /** A label for pactl's client list. */
  clientName: string;
  /** Called once when pacat ends without stop() having been called. */
  onExit: (reason: string) => void;
}

export class PacatPlayer {
  readonly #o: PacatPlayerOptions;
  readonly #child: ChildProcess;
  #timer: NodeJS.Timeout | null = null;
  /** Wall time when real-time playing began, and the stream index written by then. */
  #t0 = 0;
  #base = 0;
  #written = 0;
  #blocked = false;
  #stopped = false;
  #stderr = '';

  constructor(opts: PacatPlayerOptions) {
    this.#o = opts;
    this.#child = spawn(
      opts.pacat,
      [
        '--playback',
        '--raw',
        `--device=${opts.sink}`,
        '--format=s16le',
        `--rate=${DEVICE_SAMPLE_RATE}`,
        '--channels=1',
        `--latency-msec=${STREAM_LATENCY_MS}`,
        `--client-name=${opts.clientName}`,
        '--stream-name=virtual-device',
      ],
      { env: opts.env, stdio: ['pipe', 'ignore', 'pipe'] },
    );
    this.#child.stderr?.on('data', (c: Buffer) => {
      this.#stderr = (this.#stderr + c.toString('utf8')).slice(-2000);
    });
    this.#child.stdin?.on('error', () => undefined); // EPIPE when pacat dies; the exit below reports it
    this.#child.stdin?.on('drain', () => {
      this.#blocked = false;
    });
    this.#child.once('error', (err) => this.#ended(`pacat could not start: ${err.message}`));
    this.#child.once('exit', (code, signal) =>
      this.#ended(
        `pacat exited (${signal ?? `code ${code}`})${this.#stderr.trim() !== '' ? `: ${this.#stderr.trim().split('\n').pop()}` : ''}`,
      ),
    );
    // A stream that connects with nothing to play waits in prebuffering, the
    // null sink keeps its 2 s idle blocks, and a monitor opened then stalls.
    this.#write(PRIME_SAMPLES);
  }

  /**
   * Starts the real-time stream, once the sink is awake (its monitor
   * delivers): anything paced by wall time before that would queue up as
   * latency for good.
   */
  begin(): void {
    if (this.#timer !== null || this.#stopped) return;
    this.#t0 = performance.now();
    this.#base = this.#written;
    this.#timer = setInterval(() => this.#pump(), TICK_MS);
    this.#pump();
  }

  get pid(): number | null {
    return this.#child.pid ?? null;
  }

  get running(): boolean {
    return this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** Index of the next sample to be written: the stream position a cue takes effect at (heard one lead later). */
  get position(): number {
    return this.#written;
  }

  /** Stream index being heard at the sink about now: what was written one lead ago. */
  get now(): number {
    if (this.#timer === null) return 0;
    return this.#base + Math.floor(((performance.now() - this.#t0) * DEVICE_SAMPLE_RATE) / 1000);
  }

  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#child.stdin?.destroy();
    killQuietly(this.#child, 'SIGTERM');
  }

  /** Resolves once pacat has exited. */
  exited(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => this.#child.once('exit', () => resolve()));
  }

  #pump(): void {
    if (this.#stopped || this.#blocked) return;
    this.#write(samplesDue(performance.now() - this.#t0, this.#written - this.#base, LEAD_SAMPLES));
  }

  #write(count: number): void {
    if (count <= 0) return;
    const chunk = this.#o.timeline.read(this.#written, count);
    this.#written += count;
    const ok = this.#child.stdin?.write(pcmBytes(chunk)) ?? false;
    if (!ok) this.#blocked = true;
  }

  #ended(reason: string): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    if (this.#stopped) return;
    this.#stopped = true;
    this.#o.onExit(reason);
  }
}
