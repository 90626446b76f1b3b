/**
 * What a virtual device sounds like, sample by sample, and how fast it has to
 * be delivered. Pure: no processes, no clock of its own.
 *
 * A device's output is one endless stream of 16 kHz mono 16-bit samples,
 * numbered from 0 when the device was plugged in. It is silence until the
 * device is cued (a recorder opened it); from the cue on it plays its script
 * once, then silence again. There is never a gap: silence is real samples, so
 * a recorder sees a continuous stream, as from a microphone in a quiet room.
 */

/** Every virtual device plays 16 kHz mono 16-bit PCM: the rendered script's format and the pipeline's rate. */
export const DEVICE_SAMPLE_RATE = 16_000;

export class PlayTimeline {
  readonly #script: Int16Array;
  /** Stream index at which the script's first sample plays, or null while never cued. */
  #cueAt: number | null = null;
  #cues = 0;

  constructor(script: Int16Array) {
    this.#script = script;
  }

  /** Script length in seconds (0 for a silent device). */
  get scriptSeconds(): number {
    return this.#script.length / DEVICE_SAMPLE_RATE;
  }

  /** How many times the script was started. */
  get cues(): number {
    return this.#cues;
  }

  /** Starts the script (again, from its beginning) at stream index `at`. */
  cue(at: number): void {
    this.#cueAt = Math.max(0, Math.floor(at));
    this.#cues += 1;
  }

  /** Samples [from, from + count) of the stream: script where it plays, silence elsewhere. */
  read(from: number, count: number): Int16Array {
    const out = new Int16Array(Math.max(0, count));
    if (this.#cueAt === null || count <= 0) return out;
    const start = from - this.#cueAt; // script index of out[0]
    const first = Math.max(0, -start);
    const last = Math.min(count, this.#script.length - start);
    if (last > first) out.set(this.#script.subarray(start + first, start + last), first);
    return out;
  }

  /**
   * Where the script is at stream index `now`: seconds played (clamped to its
   * length), and whether it has played to its end. Never cued: 0, false.
   */
  progress(now: number): { cued: boolean; played_seconds: number; finished: boolean } {
    if (this.#cueAt === null) return { cued: false, played_seconds: 0, finished: false };
    const played = Math.min(this.#script.length, Math.max(0, now - this.#cueAt));
    return { cued: true, played_seconds: played / DEVICE_SAMPLE_RATE, finished: now - this.#cueAt >= this.#script.length };
  }
}

/**
 * How many samples a real-time writer owes: everything up to `elapsedMs` of
 * wall time, plus `leadSamples` kept queued ahead so the consumer never runs
 * dry between two timer ticks, minus what it already wrote.
 */
export function samplesDue(elapsedMs: number, written: number, leadSamples: number, rate = DEVICE_SAMPLE_RATE): number {
  const target = Math.floor((Math.max(0, elapsedMs) * rate) / 1000) + leadSamples;
  return Math.max(0, target - written);
}

/** Little-endian bytes of 16-bit samples (what pacat --format=s16le reads). */
export function pcmBytes(samples: Int16Array): Buffer {
  const buf = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) buf.writeInt16LE(samples[i]!, i * 2);
  return buf;
}
