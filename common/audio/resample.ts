/**
 * Sample-rate conversion by windowed sinc (Kaiser window), the one resampler
 * of the project (decision 086): the streaming `Resampler` for any pair of
 * rates (the in-process decoder, when ffmpeg does not do it), and the fixed
 * 16 ↔ 48 kHz pair the denoiser works through (upsample3, downsample3).
 * Decoding through ffmpeg resamples in ffmpeg (`-ar`, its swr resampler):
 * bench/resample.ts measures both, reports/resample.md holds the figures.
 */
import { besselI0 } from './window.ts';

/** Zero crossings of the sinc on each side: the filter's length, and so its steepness. */
const SINC_ZERO_CROSSINGS = 8;
/** Cutoff as a fraction of the lower Nyquist frequency: 7.2 kHz at 16 kHz out, above the speech band. */
const SINC_ROLLOFF = 0.9;
/** Kaiser window shape: with 8 zero crossings, about 70 dB down at 9 kHz and a flat band to 6 kHz. */
const KAISER_BETA = 6;
/** Above this many phases (rates with no small common factor), phases are rounded to the nearest of this many. */
const MAX_PHASES = 2048;

/**
 * A streaming polyphase windowed-sinc resampler (Kaiser window) for any pair
 * of rates. Output sample n sits at input position n·inRate/outRate; its
 * value is the input convolved with a low-pass sinc centred there, cut off
 * below the lower of the two Nyquist frequencies, so downsampling does not
 * alias. The filter is symmetric, so there is no delay.
 *
 * For outRate/inRate = L/M in lowest terms there are L distinct filter
 * phases, precomputed once (160 for 44.1 kHz, 1 for 48 kHz).
 */
export class Resampler {
  readonly inRate: number;
  readonly outRate: number;
  readonly #L: number;
  readonly #M: number;
  readonly #phases: number;
  readonly #taps: number;
  /** Input offset of a filter's first tap relative to floor(position). */
  readonly #first: number;
  readonly #table: Float32Array;
  /** Input not yet fully consumed, with leading zeros standing for the time before the first sample. */
  #hist: Float32Array;
  /** Input index of #hist[0]. */
  #histStart: number;
  #inCount = 0;
  /** Next output: its index, and its position floor(n·M/L) and remainder (n·M mod L). */
  #n = 0;
  #base = 0;
  #rem = 0;

  constructor(inRate: number, outRate: number) {
    if (!(inRate > 0 && outRate > 0) || !Number.isInteger(inRate) || !Number.isInteger(outRate)) {
      throw new RangeError(`unsupported sample rates ${inRate} → ${outRate}`);
    }
    this.inRate = inRate;
    this.outRate = outRate;
    const g = gcd(inRate, outRate);
    this.#L = outRate / g;
    this.#M = inRate / g;
    this.#phases = Math.min(this.#L, MAX_PHASES);
    // Cutoff in cycles per input sample.
    const cutoff = 0.5 * Math.min(1, outRate / inRate) * SINC_ROLLOFF;
    // Upsampling (8 kHz telephone audio) keeps its whole band up to 3.6 kHz, so it gets a longer,
    // steeper filter; it is cheap there, as taps are counted at the low input rate.
    const zeroCrossings = outRate > inRate ? 2 * SINC_ZERO_CROSSINGS : SINC_ZERO_CROSSINGS;
    const halfLength = zeroCrossings / (2 * cutoff); // in input samples
    const half = Math.ceil(halfLength);
    this.#taps = 2 * half;
    this.#first = -(half - 1);
    this.#table = new Float32Array(this.#phases * this.#taps);
    const i0beta = besselI0(KAISER_BETA);
    for (let p = 0; p < this.#phases; p++) {
      const frac = p / this.#phases;
      let sum = 0;
      for (let j = 0; j < this.#taps; j++) {
        const t = this.#first + j - frac; // distance from the output position, in input samples
        const x = t / halfLength;
        const w = Math.abs(x) >= 1 ? 0 : besselI0(KAISER_BETA * Math.sqrt(1 - x * x)) / i0beta;
        const v = 2 * cutoff * sinc(2 * cutoff * t) * w;
        this.#table[p * this.#taps + j] = v;
        sum += v;
      }
      // Unity gain at DC for every phase, so a constant stays constant.
      for (let j = 0; j < this.#taps; j++) this.#table[p * this.#taps + j]! /= sum;
    }
    this.#hist = new Float32Array(half);
    this.#histStart = -half;
  }

  /** Input samples held back, waiting for the future samples their filter needs. */
  get pending(): number {
    return this.#inCount - this.#base;
  }

  /** Feeds input; returns every output sample that input completes. */
  push(input: Float32Array): Float32Array {
    if (this.inRate === this.outRate) {
      this.#inCount += input.length;
      return input.slice();
    }
    const joined = new Float32Array(this.#hist.length + input.length);
    joined.set(this.#hist);
    joined.set(input, this.#hist.length);
    this.#hist = joined;
    this.#inCount += input.length;
    // Output n needs input up to floor(n·M/L) + first + taps − 1.
    return this.#run(this.#inCount - (this.#first + this.#taps - 1), Infinity);
  }

  /** Ends the input: the filter sees zeros past the end. Output length is round(inputs · out/in). */
  flush(): Float32Array {
    if (this.inRate === this.outRate) return new Float32Array(0);
    const total = Math.round((this.#inCount * this.#L) / this.#M);
    const tail = new Float32Array(this.#hist.length + this.#taps);
    tail.set(this.#hist);
    this.#hist = tail;
    return this.#run(Infinity, total);
  }

  /** Computes outputs while their position is below `baseLimit` and their index below `outLimit`. */
  #run(baseLimit: number, outLimit: number): Float32Array {
    const L = this.#L;
    const M = this.#M;
    const step = Math.floor(M / L);
    const stepRem = M % L;
    const taps = this.#taps;
    const table = this.#table;
    const phases = this.#phases;
    const hist = this.#hist;
    const histEnd = this.#histStart + hist.length;
    // How many outputs fit: by position (input available) and by count.
    let count = 0;
    {
      let b = this.#base;
      let r = this.#rem;
      let n = this.#n;
      const last = Math.min(baseLimit, histEnd - (this.#first + taps - 1));
      while (b < last && n < outLimit) {
        count++;
        n++;
        b += step;
        r += stepRem;
        if (r >= L) {
          r -= L;
          b++;
        }
      }
    }
    const out = new Float32Array(count);
    let base = this.#base;
    let rem = this.#rem;
    const offset = this.#first - this.#histStart;
    for (let o = 0; o < count; o++) {
      let p: number;
      let at = base + offset;
      if (phases === L) {
        p = rem;
      } else {
        p = Math.round((rem * phases) / L);
        if (p === phases) {
          p = 0;
          at++;
        }
      }
      const t0 = p * taps;
      let acc = 0;
      for (let j = 0; j < taps; j++) acc += hist[at + j]! * table[t0 + j]!;
      out[o] = acc;
      base += step;
      rem += stepRem;
      if (rem >= L) {
        rem -= L;
        base++;
      }
    }
    this.#n += count;
    this.#base = base;
    this.#rem = rem;
    // Drop input no later output will touch.
    const keepFrom = base + this.#first - 1;
    const drop = Math.max(0, Math.min(hist.length, keepFrom - this.#histStart));
    if (drop > 0) {
      this.#hist = hist.slice(drop);
      this.#histStart += drop;
    }
    return out;
  }
}

/** Resamples a whole signal at once. */
export function resample(samples: Float32Array, inRate: number, outRate: number): Float32Array {
  if (inRate === outRate) return samples.slice();
  const r = new Resampler(inRate, outRate);
  const head = r.push(samples);
  const tail = r.flush();
  const out = new Float32Array(head.length + tail.length);
  out.set(head);
  out.set(tail, head.length);
  return out;
}

function sinc(x: number): number {
  if (x === 0) return 1;
  const px = Math.PI * x;
  return Math.sin(px) / px;
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

// ── 16 kHz ↔ 48 kHz, for the denoiser ────────────────────────────────────
//
// The denoiser (RNNoise) works at 48 kHz only. One windowed-sinc low-pass
// (cut at 7.6 kHz, Kaiser window) serves both directions, in polyphase form
// so no zero is ever multiplied. It keeps its own filter (odd length, its
// delay compensated, the prototype normalized as a whole): the transcripts
// of enhanced audio were measured with it (decisions 036 and 086).

export const RESAMPLE_FACTOR = 3;
const TAPS_PER_PHASE = 32;
const CUTOFF_HZ = 7600;
const HIGH_RATE = 48_000;
const X3_KAISER_BETA = 8;

/** Low-pass prototype at 48 kHz, TAPS_PER_PHASE × 3 + 1 taps (odd, so its delay is a whole sample), unity gain at DC. */
const PROTOTYPE: Float64Array = (() => {
  const length = TAPS_PER_PHASE * RESAMPLE_FACTOR + 1;
  const h = new Float64Array(length);
  const centre = (length - 1) / 2;
  const fc = CUTOFF_HZ / HIGH_RATE;
  let sum = 0;
  for (let i = 0; i < length; i++) {
    const t = i - centre;
    const lowPass = t === 0 ? 2 * fc : Math.sin(2 * Math.PI * fc * t) / (Math.PI * t);
    const r = (2 * i) / (length - 1) - 1;
    h[i] = lowPass * (besselI0(X3_KAISER_BETA * Math.sqrt(Math.max(0, 1 - r * r))) / besselI0(X3_KAISER_BETA));
    sum += h[i]!;
  }
  for (let i = 0; i < length; i++) h[i] = h[i]! / sum;
  return h;
})();

/** The filter's delay in 48 kHz samples; both directions compensate it so output lines up with input. */
const DELAY = (PROTOTYPE.length - 1) / 2;

/** 16 kHz → 48 kHz: zero-stuff by 3 and low-pass (gain 3 restores the level). */
export function upsample3(x: Float32Array): Float32Array {
  const out = new Float32Array(x.length * RESAMPLE_FACTOR);
  const h = PROTOTYPE;
  for (let n = 0; n < out.length; n++) {
    // y[n] = 3 Σ_m h[n + DELAY − 3m] x[m]  (delay removed, so y lines up with x)
    const c = n + DELAY;
    let acc = 0;
    const mHigh = Math.floor(c / RESAMPLE_FACTOR);
    for (let m = mHigh; m >= 0; m--) {
      const k = c - RESAMPLE_FACTOR * m;
      if (k >= h.length) break;
      if (m < x.length) acc += h[k]! * x[m]!;
    }
    out[n] = acc * RESAMPLE_FACTOR;
  }
  return out;
}

/** 48 kHz → 16 kHz: low-pass and keep every third sample. */
export function downsample3(x: Float32Array): Float32Array {
  const out = new Float32Array(Math.floor(x.length / RESAMPLE_FACTOR));
  const h = PROTOTYPE;
  for (let m = 0; m < out.length; m++) {
    const c = m * RESAMPLE_FACTOR + DELAY;
    let acc = 0;
    for (let k = 0; k < h.length; k++) {
      const s = c - k;
      if (s >= 0 && s < x.length) acc += h[k]! * x[s]!;
    }
    out[m] = acc;
  }
  return out;
}
