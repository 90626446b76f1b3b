/**
 * Mixes the devices of one recording (microphone and system audio) into one
 * mono track, as they deliver. Pure: no clock, no I/O.
 *
 * Each source keeps a queue; whatever all sources have delivered is summed
 * (with clipping to 16 bits) and emitted. A source that falls more than
 * `maxSkew` samples behind the others (a stalled device) is padded with
 * silence, so the track keeps up with real time; flush() pads every source
 * to the longest, at pause and at stop.
 */
export class Mixer {
  readonly #queues: Int16Array[][];
  readonly #queued: number[];
  readonly #emit: (samples: Int16Array) => void;
  readonly #maxSkew: number;
  #emitted = 0;

  constructor(sources: number, emit: (samples: Int16Array) => void, opts: { maxSkewSamples?: number } = {}) {
    if (!Number.isInteger(sources) || sources < 1) throw new Error('a mixer needs at least one source');
    this.#queues = Array.from({ length: sources }, () => []);
    this.#queued = Array.from({ length: sources }, () => 0);
    this.#emit = emit;
    this.#maxSkew = opts.maxSkewSamples ?? 16_000;
  }

  /** Samples emitted so far. */
  get emitted(): number {
    return this.#emitted;
  }

  push(source: number, samples: Int16Array): void {
    if (samples.length === 0) return;
    if (this.#queues.length === 1) {
      this.#out(samples);
      return;
    }
    const queue = this.#queues[source];
    if (queue === undefined) throw new Error(`the mixer has no source ${source}`);
    queue.push(samples);
    this.#queued[source]! += samples.length;
    this.#drain();
  }

  /** Emits everything queued, padding sources that delivered less with silence. */
  flush(): void {
    const longest = Math.max(...this.#queued);
    if (longest > 0) this.#out(this.#take(longest));
  }

  #drain(): void {
    const shortest = Math.min(...this.#queued);
    const longest = Math.max(...this.#queued);
    // A source that lags too far is padded, so the others are not held up.
    const count = longest - shortest > this.#maxSkew ? longest - this.#maxSkew : shortest;
    if (count > 0) this.#out(this.#take(count));
  }

  /** Removes `count` samples from every queue (silence where one has fewer) and returns their sum. */
  #take(count: number): Int16Array {
    const sum = new Int32Array(count);
    this.#queues.forEach((queue, s) => {
      let filled = 0;
      while (filled < count && queue.length > 0) {
        const head = queue[0]!;
        const n = Math.min(head.length, count - filled);
        for (let i = 0; i < n; i++) sum[filled + i]! += head[i]!;
        filled += n;
        if (n === head.length) queue.shift();
        else queue[0] = head.subarray(n);
      }
      this.#queued[s] = Math.max(0, this.#queued[s]! - count);
    });
    const out = new Int16Array(count);
    for (let i = 0; i < count; i++) out[i] = Math.max(-32768, Math.min(32767, sum[i]!));
    return out;
  }

  #out(samples: Int16Array): void {
    this.#emitted += samples.length;
    this.#emit(samples);
  }
}
