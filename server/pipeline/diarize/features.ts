/**
 * Diarization's frame features (server/pipeline/diarize.ts): MFCCs c1…c12
 * of 25 ms frames every 10 ms, YIN pitch on the signal decimated to 8 kHz,
 * and the sufficient statistics (count, sum, sum of outer products) blocks,
 * windows and clusters keep of them.
 */
import { Fft } from '../../../common/audio/fft.ts';

export const FRAME = 400; // 25 ms at 16 kHz
export const FRAME_HOP = 160; // 10 ms
const FFT_SIZE = 512;
export const MEL_FILTERS = 26;
export const CEPSTRA = 12; // c1…c12; c0 (loudness) says little about who speaks
const PRE_EMPHASIS = 0.97;
/** Frames more than this far below the window's loudest frame are pauses between words and are left out. */
export const FRAME_DYNAMIC_RANGE_DB = 35;

export const FEATURE_DIMENSIONS = 2 * CEPSTRA + 2;

/**
 * Sufficient statistics of a window's frame cepstra (count, sum, sum of outer
 * products): clusters add them up to fit a Gaussian for the split test.
 */
export interface FrameStats {
  n: number;
  sum: Float64Array;
  outer: Float64Array;
  /** Voiced frames' log2 F0: count, sum, sum of squares. */
  pn: number;
  psum: number;
  psq: number;
}

export function emptyStats(): FrameStats {
  return { n: 0, sum: new Float64Array(CEPSTRA), outer: new Float64Array(CEPSTRA * CEPSTRA), pn: 0, psum: 0, psq: 0 };
}

export function addStats(into: FrameStats, from: FrameStats): void {
  into.pn += from.pn;
  into.psum += from.psum;
  into.psq += from.psq;
  into.n += from.n;
  for (let i = 0; i < into.sum.length; i++) into.sum[i]! += from.sum[i]!;
  for (let i = 0; i < into.outer.length; i++) into.outer[i]! += from.outer[i]!;
}

/** DCT-II rows for c1…c12 over the MEL_FILTERS log energies (CEPSTRA × MEL_FILTERS). */
const DCT = (() => {
  const dct = new Float64Array(CEPSTRA * MEL_FILTERS);
  for (let c = 0; c < CEPSTRA; c++) {
    for (let m = 0; m < MEL_FILTERS; m++)
      dct[c * MEL_FILTERS + m] = Math.cos((Math.PI * (c + 1) * (m + 0.5)) / MEL_FILTERS) * Math.sqrt(2 / MEL_FILTERS);
  }
  return dct;
})();

/**
 * The cepstra c1…c12 of a frame's MEL_FILTERS log mel energies, read from
 * `logMel` at `offset`: what MfccExtractor.frame gives from the same energies
 * (the mixture model of overlapped speech sums two frames' energies first).
 */
export function melCepstra(logMel: ArrayLike<number>, offset = 0): Float64Array {
  const ceps = new Float64Array(CEPSTRA);
  for (let c = 0; c < CEPSTRA; c++) {
    let acc = 0;
    for (let m = 0; m < MEL_FILTERS; m++) acc += DCT[c * MEL_FILTERS + m]! * logMel[offset + m]!;
    ceps[c] = acc;
  }
  return ceps;
}

/** MFCCs of single frames: pre-emphasis, Hamming, |FFT|², mel filterbank, log, DCT-II. */
export class MfccExtractor {
  readonly #window: Float64Array;
  readonly #filters: { from: number; weights: Float64Array }[];
  readonly #re = new Float64Array(FFT_SIZE);
  readonly #im = new Float64Array(FFT_SIZE);
  readonly #mel = new Float64Array(MEL_FILTERS);

  constructor(sampleRate: number) {
    this.#window = new Float64Array(FRAME);
    for (let i = 0; i < FRAME; i++) this.#window[i] = 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (FRAME - 1));
    this.#filters = melFilterbank(MEL_FILTERS, FFT_SIZE, sampleRate, 60, Math.min(7600, sampleRate / 2));
  }

  /** The frame of FRAME samples starting at `at` (zeros past the end): cepstra, level, and its log mel energies (a copy). */
  frame(samples: Float32Array, at: number): { ceps: Float64Array; energyDb: number; logMel: Float64Array } {
    const re = this.#re;
    const im = this.#im;
    re.fill(0);
    im.fill(0);
    let prev = at > 0 ? (samples[at - 1] ?? 0) : 0;
    let energy = 0;
    for (let i = 0; i < FRAME; i++) {
      const x = samples[at + i] ?? 0;
      energy += x * x;
      re[i] = (x - PRE_EMPHASIS * prev) * this.#window[i]!;
      prev = x;
    }
    fft(re, im);
    const mel = this.#mel;
    for (let m = 0; m < MEL_FILTERS; m++) {
      const { from, weights } = this.#filters[m]!;
      let acc = 0;
      for (let k = 0; k < weights.length; k++) {
        const bin = from + k;
        acc += weights[k]! * (re[bin]! * re[bin]! + im[bin]! * im[bin]!);
      }
      mel[m] = Math.log(acc + 1e-10);
    }
    return { ceps: melCepstra(mel), energyDb: 10 * Math.log10(energy / FRAME + 1e-12), logMel: mel.slice() };
  }
}

/** Triangular filters evenly spaced on the mel scale, each as its first FFT bin and weights. */
function melFilterbank(
  count: number,
  fftSize: number,
  rate: number,
  lowHz: number,
  highHz: number,
): { from: number; weights: Float64Array }[] {
  const toMel = (hz: number) => 2595 * Math.log10(1 + hz / 700);
  const toHz = (mel: number) => 700 * (10 ** (mel / 2595) - 1);
  const lowMel = toMel(lowHz);
  const highMel = toMel(highHz);
  const edges: number[] = [];
  for (let i = 0; i < count + 2; i++) edges.push((toHz(lowMel + ((highMel - lowMel) * i) / (count + 1)) * fftSize) / rate);
  const filters: { from: number; weights: Float64Array }[] = [];
  for (let m = 0; m < count; m++) {
    const left = edges[m]!;
    const centre = edges[m + 1]!;
    const right = edges[m + 2]!;
    const from = Math.max(0, Math.ceil(left));
    const to = Math.min(fftSize / 2, Math.floor(right));
    const weights = new Float64Array(Math.max(0, to - from + 1));
    for (let bin = from; bin <= to; bin++) {
      weights[bin - from] = bin <= centre ? (bin - left) / (centre - left) : (right - bin) / (right - centre);
    }
    filters.push({ from, weights });
  }
  return filters;
}

const ffts = new Map<number, Fft>();

/** In-place complex FFT (the pipeline's one FFT, common/audio/fft.ts); the length must be a power of two. */
export function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  if (n !== im.length || n === 0 || (n & (n - 1)) !== 0) throw new RangeError('fft length must be a power of two');
  let transform = ffts.get(n);
  if (transform === undefined) {
    transform = new Fft(n);
    ffts.set(n, transform);
  }
  transform.transform(re, im);
}

// Pitch, on audio decimated to 8 kHz.
export const PITCH_RATE = 8000;
export const PITCH_FRAME = 200; // 25 ms
export const PITCH_HOP = 160; // 20 ms
const PITCH_MIN_HZ = 60;
const PITCH_MAX_HZ = 400;
const PITCH_MIN_LAG = Math.floor(PITCH_RATE / PITCH_MAX_HZ);
export const PITCH_MAX_LAG = Math.ceil(PITCH_RATE / PITCH_MIN_HZ);
/** YIN's absolute threshold on the normalised difference: below it a dip is a period. */
const YIN_THRESHOLD = 0.15;

/** Halves the rate: a short low-pass (7-tap half-band-like FIR) then every other sample. */
export function decimateBy2(x: Float32Array): Float32Array {
  const taps = [-0.0625, 0, 0.5625, 1, 0.5625, 0, -0.0625].map((v) => v / 2);
  const out = new Float32Array(Math.floor(x.length / 2));
  for (let i = 0; i < out.length; i++) {
    const c = 2 * i;
    let acc = 0;
    for (let k = 0; k < taps.length; k++) acc += taps[k]! * (x[c + k - 3] ?? 0);
    out[i] = acc;
  }
  return out;
}

/**
 * YIN (de Cheveigné & Kawahara 2002) on one frame of the 8 kHz signal:
 * the fundamental in Hz, or 0 when the frame is not voiced.
 */
export function yinPitch(x: Float32Array, at: number): number {
  const d = new Float64Array(PITCH_MAX_LAG + 2);
  let energy = 0;
  for (let i = 0; i < PITCH_FRAME; i++) energy += (x[at + i] ?? 0) ** 2;
  if (energy / PITCH_FRAME < 1e-7) return 0; // silence (−70 dBFS)
  for (let tau = 1; tau <= PITCH_MAX_LAG + 1; tau++) {
    let acc = 0;
    for (let i = 0; i < PITCH_FRAME; i++) {
      const diff = (x[at + i] ?? 0) - (x[at + i + tau] ?? 0);
      acc += diff * diff;
    }
    d[tau] = acc;
  }
  // Cumulative mean normalised difference.
  let running = 0;
  const dn = new Float64Array(PITCH_MAX_LAG + 2);
  dn[0] = 1;
  for (let tau = 1; tau <= PITCH_MAX_LAG + 1; tau++) {
    running += d[tau]!;
    dn[tau] = running > 0 ? (d[tau]! * tau) / running : 1;
  }
  for (let tau = PITCH_MIN_LAG; tau <= PITCH_MAX_LAG; tau++) {
    if (dn[tau]! < YIN_THRESHOLD) {
      while (tau + 1 <= PITCH_MAX_LAG && dn[tau + 1]! < dn[tau]!) tau++;
      // Parabolic interpolation around the dip for a sub-sample period.
      const a = dn[tau - 1]!;
      const b = dn[tau]!;
      const c = dn[tau + 1]!;
      const denom = a - 2 * b + c;
      const shift = denom !== 0 ? (0.5 * (a - c)) / denom : 0;
      const period = tau + Math.max(-1, Math.min(1, shift));
      return PITCH_RATE / period;
    }
  }
  return 0;
}

export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}
