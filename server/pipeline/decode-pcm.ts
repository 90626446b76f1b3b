/**
 * Where decoded samples go: the sink that collects them into one array
 * (sized once from a duration estimate), the reader of ffmpeg's float32
 * byte stream, the channel downmix, and the small pieces both decoding
 * engines share (progress, the errors about the file's contents).
 */
import { PIPELINE_SAMPLE_RATE, StageError, type PcmAudio, type StageControl } from './types.ts';

export function invalidFile(label: string, detail?: string): StageError {
  return new StageError(`the file is not a valid ${label} file${detail ? ` (${detail})` : ''}`, { retryable: false });
}

export function noSamples(): StageError {
  return new StageError('the file holds no audio samples (it may be truncated or hold only headers)', { retryable: false });
}

export function throttledProgress(control: StageControl): (fraction: number) => void {
  let last = -1;
  return (fraction) => {
    const f = Math.min(1, Math.max(0, fraction));
    if (f - last >= 0.005) {
      last = f;
      control.progress(f);
    }
  };
}

export function toPcm(samples: Float32Array): PcmAudio {
  return { sampleRate: PIPELINE_SAMPLE_RATE, samples, durationSeconds: samples.length / PIPELINE_SAMPLE_RATE };
}

/** The mean of the channels: speech is usually centred, and the mean never clips. */
export function downmix(channels: readonly Float32Array[]): Float32Array {
  const first = channels[0];
  if (first === undefined) return new Float32Array(0);
  if (channels.length === 1) return first;
  let length = first.length;
  for (const ch of channels) length = Math.min(length, ch.length);
  const out = new Float32Array(length);
  for (const ch of channels) for (let i = 0; i < length; i++) out[i]! += ch[i]!;
  const scale = 1 / channels.length;
  for (let i = 0; i < length; i++) out[i]! *= scale;
  return out;
}

/**
 * Collects the decoded samples. It starts in blocks and, once a duration
 * estimate arrives, moves into one array of about the final size, so a long
 * file is not held twice while it is put together at the end.
 * Samples are clamped to [-1, 1] on the way in; pushed arrays become the sink's.
 */
export class PcmSink {
  #blocks: Float32Array[] = [];
  #main: Float32Array | null = null;
  #mainLength = 0;
  #length = 0;
  #finished = false;

  get length(): number {
    return this.#length;
  }

  /** Reserves room for about `samples` (a little more: container durations are estimates). */
  reserve(samples: number): void {
    if (this.#finished || this.#main !== null || !(samples > 0)) return;
    const capacity = Math.ceil(samples * 1.02) + PIPELINE_SAMPLE_RATE;
    if (capacity < this.#length) return;
    const main = new Float32Array(capacity);
    let at = 0;
    for (const b of this.#blocks) {
      main.set(b, at);
      at += b.length;
    }
    this.#blocks = [];
    this.#main = main;
    this.#mainLength = at;
  }

  push(samples: Float32Array): void {
    const n = samples.length;
    if (n === 0) return;
    for (let i = 0; i < n; i++) {
      const v = samples[i]!;
      if (v > 1) samples[i] = 1;
      else if (v < -1) samples[i] = -1;
    }
    this.#length += n;
    const main = this.#main;
    if (main !== null && this.#blocks.length === 0 && this.#mainLength + n <= main.length) {
      main.set(samples, this.#mainLength);
      this.#mainLength += n;
      return;
    }
    // Past the reservation (or none yet). The sink owns what it is given: no copy.
    this.#blocks.push(samples);
  }

  finish(): Float32Array {
    this.#finished = true;
    if (this.#main !== null && this.#blocks.length === 0) {
      const main = this.#main;
      // A close estimate keeps the reserved array (a view into it); a poor one is trimmed by a copy.
      return main.length - this.#mainLength > main.length / 8 ? main.slice(0, this.#mainLength) : main.subarray(0, this.#mainLength);
    }
    const out = new Float32Array(this.#length);
    let at = 0;
    if (this.#main !== null) {
      out.set(this.#main.subarray(0, this.#mainLength), 0);
      at = this.#mainLength;
      this.#main = null;
    }
    for (const b of this.#blocks) {
      out.set(b, at);
      at += b.length;
    }
    this.#blocks = [];
    return out;
  }
}

/** Turns ffmpeg's little-endian float32 byte stream, cut anywhere, into samples. */
export class ByteToFloat {
  readonly #sink: PcmSink;
  #carry = Buffer.alloc(0);

  constructor(sink: PcmSink) {
    this.#sink = sink;
  }

  push(chunk: Buffer): void {
    const bytes = this.#carry.length > 0 ? Buffer.concat([this.#carry, chunk]) : chunk;
    const whole = bytes.length - (bytes.length % 4);
    const floats = new Float32Array(whole / 4);
    // Copy through a byte view: the chunk's offset need not be 4-aligned. x86/ARM are little-endian, as f32le is.
    new Uint8Array(floats.buffer).set(bytes.subarray(0, whole));
    this.#carry = Buffer.from(bytes.subarray(whole));
    this.#sink.push(floats);
  }
}
