/**
 * Dereverberation by weighted prediction error (WPE), single channel.
 *
 * Late reverberation in one STFT bin is, to a good approximation, a linear
 * prediction from the same bin a few frames earlier. WPE estimates that
 * predictor per bin and subtracts it: d[t] = y[t] − Σ_k g_k* · y[t − D − k].
 * The prediction delay D skips the first frames after the direct sound so the
 * early reflections (which help intelligibility) stay; only the tail is
 * removed. The predictor minimises Σ_t |d[t]|² / λ[t], where λ[t] is the
 * power of the current estimate of the dry speech: quiet frames weigh more,
 * which is what makes the estimate follow the speech's sparse, time-varying
 * power rather than smear it. Alternating λ and g a few times converges.
 *
 * Per bin that is a K×K Hermitian system R g = p, solved by a Cholesky
 * factorisation with a little diagonal loading (R can be near-singular in
 * silent bins). Long recordings are processed in blocks so memory stays
 * bounded; each block sees the frames before it as prediction history.
 * Decision: docs/decisions/036-speech-enhancement-front-end.md.
 */
import { PIPELINE_SAMPLE_RATE, type PcmAudio, type StageControl } from '../types.ts';
import { Fft } from '../../../common/audio/fft.ts';
import { sqrtHann } from '../../../common/audio/window.ts';

export interface WpeOptions {
  /** STFT size and hop in samples (16 kHz). */
  fftSize: number;
  hop: number;
  /** Prediction delay in frames: reflections earlier than this are kept. */
  delay: number;
  /** Prediction taps per frequency bin. */
  taps: number;
  /** Alternations of power estimate and predictor. */
  iterations: number;
  /** Frames of one estimation block (bounds memory on long recordings). */
  blockFrames: number;
}

const DEFAULT_WPE_OPTIONS: WpeOptions = {
  fftSize: 512,
  hop: 128,
  delay: 3,
  taps: 10,
  iterations: 3,
  // 60 s at 16 kHz / 128: enough frames for a stable K×K estimate, about 25 MB per block.
  blockFrames: 7500,
};

/** λ never falls below this fraction of the bin's mean power, so silence cannot dominate the fit. */
const POWER_FLOOR = 1e-4;
/** Diagonal loading of R, relative to its mean diagonal. */
const LOADING = 1e-3;

export async function dereverberate(audio: PcmAudio, control: StageControl, options: Partial<WpeOptions> = {}): Promise<PcmAudio> {
  const length = audio.samples.length;
  if (length === 0) return audio;
  const all = await dereverberateBlocks(audio.samples, 0, length, { from: 0, to: wpeBlockCount(length, options) }, control, options);
  return { sampleRate: PIPELINE_SAMPLE_RATE, samples: all.samples, durationSeconds: audio.durationSeconds };
}

/** How many estimation blocks dereverberate cuts a recording of `length` samples into. */
export function wpeBlockCount(length: number, options: Partial<WpeOptions> = {}): number {
  const o = { ...DEFAULT_WPE_OPTIONS, ...options };
  return Math.ceil(Math.ceil((length + o.fftSize - o.hop) / o.hop) / o.blockFrames);
}

/** A run of estimation blocks [from, to). */
export interface WpeBlocks {
  from: number;
  to: number;
}

/**
 * The recording's samples that blocks [from, to) read ([start, end)) and
 * write ([outStart, outEnd)), for a recording of `length` samples: a part
 * decoded on its own thread is handed `read` and gives back `write`.
 */
export function wpeBlockWindow(
  length: number,
  blocks: WpeBlocks,
  options: Partial<WpeOptions> = {},
): { read: [number, number]; write: [number, number] } {
  const o = { ...DEFAULT_WPE_OPTIONS, ...options };
  const lead = o.fftSize - o.hop;
  const frames = Math.ceil((length + lead) / o.hop);
  const firstFrame = blocks.from * o.blockFrames;
  const endFrame = Math.min(frames, blocks.to * o.blockFrames);
  const history = o.delay + o.taps - 1;
  const clamp = (s: number) => Math.min(length, Math.max(0, s));
  return {
    read: [clamp(Math.max(0, firstFrame - history) * o.hop - lead), clamp((endFrame - 1) * o.hop - lead + o.fftSize)],
    write: [clamp(firstFrame * o.hop - lead), clamp((endFrame - 1) * o.hop - lead + o.fftSize)],
  };
}

/**
 * Dereverberates estimation blocks [from, to) of a recording of `length`
 * samples, of which `x` holds the samples from `offset` on (at least the
 * window wpeBlockWindow reads). Each block estimates its own predictors from
 * its own frames, with the frames before it as history only, so blocks are
 * independent: parts of a recording decoded apart and their outputs added
 * where they overlap (the STFT frames that straddle the boundary) give the
 * recording decoded whole (decision 102). Returns the samples the blocks
 * write, from `start`.
 */
export async function dereverberateBlocks(
  x: Float32Array,
  offset: number,
  length: number,
  blocks: WpeBlocks,
  control: StageControl,
  options: Partial<WpeOptions> = {},
): Promise<{ start: number; samples: Float32Array }> {
  const o = { ...DEFAULT_WPE_OPTIONS, ...options };
  const n = o.fftSize;
  const hop = o.hop;
  const bins = n / 2 + 1;
  const lead = n - hop; // frame t starts at t·hop − lead, so the first samples get full overlap
  const frames = Math.ceil((length + lead) / hop);
  const window = sqrtHann(n);
  // sqrt-Hann analysis × synthesis is a Hann window; Hann at hop n/4 sums to 2.
  const overlapGain = (n / hop) * 0.5;
  const fft = new Fft(n);
  const [outStart, outEnd] = wpeBlockWindow(length, blocks, o).write;
  const out = new Float64Array(outEnd - outStart);
  const history = o.delay + o.taps - 1;
  const sample = (s: number) => (s >= 0 && s < length ? (x[s - offset] ?? 0) : 0);
  const lastFrame = Math.min(frames, blocks.to * o.blockFrames);

  for (let blockStart = blocks.from * o.blockFrames; blockStart < lastFrame; blockStart += o.blockFrames) {
    const blockEnd = Math.min(frames, blockStart + o.blockFrames);
    const first = Math.max(0, blockStart - history);
    const count = blockEnd - first;
    const own = blockStart - first; // index of the block's first own frame
    // Bin-major storage: the per-bin loops below read one contiguous row.
    const re = new Float64Array(bins * count);
    const im = new Float64Array(bins * count);
    const fr = new Float64Array(n);
    const fi = new Float64Array(n);
    for (let t = 0; t < count; t++) {
      const start = (first + t) * hop - lead;
      for (let i = 0; i < n; i++) {
        fr[i] = sample(start + i) * window[i]!;
        fi[i] = 0;
      }
      fft.transform(fr, fi);
      for (let f = 0; f < bins; f++) {
        re[f * count + t] = fr[f]!;
        im[f * count + t] = fi[f]!;
      }
    }
    await control.checkpoint();

    const dRe = new Float64Array(count);
    const dIm = new Float64Array(count);
    for (let f = 0; f < bins; f++) {
      const yRe = re.subarray(f * count, (f + 1) * count);
      const yIm = im.subarray(f * count, (f + 1) * count);
      predictBin(yRe, yIm, own, o, dRe, dIm);
      yRe.set(dRe);
      yIm.set(dIm);
      if ((f & 31) === 31) await control.checkpoint();
    }

    for (let t = own; t < count; t++) {
      for (let f = 0; f < bins; f++) {
        fr[f] = re[f * count + t]!;
        fi[f] = im[f * count + t]!;
      }
      // Hermitian symmetry gives the upper half of the spectrum of a real frame.
      for (let f = bins; f < n; f++) {
        fr[f] = fr[n - f]!;
        fi[f] = -fi[n - f]!;
      }
      fft.transform(fr, fi, true);
      const start = (first + t) * hop - lead;
      for (let i = 0; i < n; i++) {
        const s = start + i;
        if (s >= outStart && s < outEnd) out[s - outStart] = out[s - outStart]! + (fr[i]! * window[i]!) / overlapGain;
      }
    }
    control.progress((blockEnd - blocks.from * o.blockFrames) / (lastFrame - blocks.from * o.blockFrames));
    await control.checkpoint();
  }
  const samples = new Float32Array(out.length);
  for (let i = 0; i < out.length; i++) samples[i] = out[i]!;
  return { start: outStart, samples };
}

/**
 * One bin: estimate the predictor over frames [own, end) and write the
 * dereverberated frames into dRe/dIm (frames before `own` are history only
 * and copied unchanged).
 */
function predictBin(yRe: Float64Array, yIm: Float64Array, own: number, o: WpeOptions, dRe: Float64Array, dIm: Float64Array): void {
  const count = yRe.length;
  const k = o.taps;
  const delay = o.delay;
  dRe.set(yRe);
  dIm.set(yIm);
  let meanPower = 0;
  for (let t = own; t < count; t++) meanPower += yRe[t]! * yRe[t]! + yIm[t]! * yIm[t]!;
  meanPower /= Math.max(1, count - own);
  if (meanPower <= 0) return;
  const floor = POWER_FLOOR * meanPower;
  const weight = new Float64Array(count);
  const rRe = new Float64Array(k * k);
  const rIm = new Float64Array(k * k);
  const pRe = new Float64Array(k);
  const pIm = new Float64Array(k);
  const gRe = new Float64Array(k);
  const gIm = new Float64Array(k);
  const lRe = new Float64Array(k * k);
  const lIm = new Float64Array(k * k);
  const zRe = new Float64Array(k);
  const zIm = new Float64Array(k);

  for (let iter = 0; iter < o.iterations; iter++) {
    // λ[t]: the estimate's power, smoothed over ±1 frame, floored; weight = 1/λ.
    for (let t = own; t < count; t++) {
      let acc = 0;
      let m = 0;
      for (let u = Math.max(0, t - 1); u <= Math.min(count - 1, t + 1); u++) {
        acc += dRe[u]! * dRe[u]! + dIm[u]! * dIm[u]!;
        m++;
      }
      weight[t] = 1 / Math.max(acc / m, floor);
    }
    // R_ij = Σ_t w y[t−D−i] conj(y[t−D−j]) (upper triangle), p_i = Σ_t w y[t−D−i] conj(y[t]).
    const from = Math.max(own, delay + k - 1);
    for (let i = 0; i < k; i++) {
      const oi = delay + i;
      let aRe = 0;
      let aIm = 0;
      for (let t = from; t < count; t++) {
        const w = weight[t]!;
        const ar = yRe[t - oi]!;
        const ai = yIm[t - oi]!;
        const cr = yRe[t]!;
        const ci = yIm[t]!;
        aRe += w * (ar * cr + ai * ci);
        aIm += w * (ai * cr - ar * ci);
      }
      pRe[i] = aRe;
      pIm[i] = aIm;
      for (let j = i; j < k; j++) {
        const oj = delay + j;
        let sRe = 0;
        let sIm = 0;
        for (let t = from; t < count; t++) {
          const w = weight[t]!;
          const ar = yRe[t - oi]!;
          const ai = yIm[t - oi]!;
          const cr = yRe[t - oj]!;
          const ci = yIm[t - oj]!;
          sRe += w * (ar * cr + ai * ci);
          sIm += w * (ai * cr - ar * ci);
        }
        rRe[i * k + j] = sRe;
        rIm[i * k + j] = sIm;
        rRe[j * k + i] = sRe;
        rIm[j * k + i] = -sIm;
      }
    }
    let trace = 0;
    for (let i = 0; i < k; i++) trace += rRe[i * k + i]!;
    const load = (LOADING * trace) / k + 1e-30;
    for (let i = 0; i < k; i++) rRe[i * k + i] = rRe[i * k + i]! + load;
    if (!solveHermitian(rRe, rIm, pRe, pIm, k, gRe, gIm, lRe, lIm, zRe, zIm)) return;

    // d[t] = y[t] − Σ_k conj(g_k) y[t−D−k]
    for (let t = own; t < count; t++) {
      let sRe = 0;
      let sIm = 0;
      for (let i = 0; i < k; i++) {
        const s = t - delay - i;
        if (s < 0) break;
        const gr = gRe[i]!;
        const gi = gIm[i]!;
        const ar = yRe[s]!;
        const ai = yIm[s]!;
        sRe += gr * ar + gi * ai;
        sIm += gr * ai - gi * ar;
      }
      dRe[t] = yRe[t]! - sRe;
      dIm[t] = yIm[t]! - sIm;
    }
  }
}

/**
 * Solves A g = p for a Hermitian positive-definite A (k×k, row-major split
 * real/imaginary) by Cholesky A = L Lᴴ, then L z = p and Lᴴ g = z.
 * Returns false when A is not positive definite (the bin is left unchanged).
 */
export function solveHermitian(
  aRe: Float64Array,
  aIm: Float64Array,
  pRe: Float64Array,
  pIm: Float64Array,
  k: number,
  gRe: Float64Array,
  gIm: Float64Array,
  lRe: Float64Array = new Float64Array(k * k),
  lIm: Float64Array = new Float64Array(k * k),
  zRe: Float64Array = new Float64Array(k),
  zIm: Float64Array = new Float64Array(k),
): boolean {
  lRe.fill(0);
  lIm.fill(0);
  for (let j = 0; j < k; j++) {
    let d = aRe[j * k + j]!;
    for (let m = 0; m < j; m++) d -= lRe[j * k + m]! ** 2 + lIm[j * k + m]! ** 2;
    if (!(d > 0)) return false;
    const ljj = Math.sqrt(d);
    lRe[j * k + j] = ljj;
    for (let i = j + 1; i < k; i++) {
      // L_ij = (A_ij − Σ_m L_im conj(L_jm)) / L_jj
      let sRe = aRe[i * k + j]!;
      let sIm = aIm[i * k + j]!;
      for (let m = 0; m < j; m++) {
        const ar = lRe[i * k + m]!;
        const ai = lIm[i * k + m]!;
        const br = lRe[j * k + m]!;
        const bi = lIm[j * k + m]!;
        sRe -= ar * br + ai * bi;
        sIm -= ai * br - ar * bi;
      }
      lRe[i * k + j] = sRe / ljj;
      lIm[i * k + j] = sIm / ljj;
    }
  }
  for (let i = 0; i < k; i++) {
    let sRe = pRe[i]!;
    let sIm = pIm[i]!;
    for (let m = 0; m < i; m++) {
      const ar = lRe[i * k + m]!;
      const ai = lIm[i * k + m]!;
      sRe -= ar * zRe[m]! - ai * zIm[m]!;
      sIm -= ar * zIm[m]! + ai * zRe[m]!;
    }
    const lii = lRe[i * k + i]!;
    zRe[i] = sRe / lii;
    zIm[i] = sIm / lii;
  }
  for (let i = k - 1; i >= 0; i--) {
    // (Lᴴ)_im = conj(L_mi)
    let sRe = zRe[i]!;
    let sIm = zIm[i]!;
    for (let m = i + 1; m < k; m++) {
      const ar = lRe[m * k + i]!;
      const ai = -lIm[m * k + i]!;
      sRe -= ar * gRe[m]! - ai * gIm[m]!;
      sIm -= ar * gIm[m]! + ai * gRe[m]!;
    }
    const lii = lRe[i * k + i]!;
    gRe[i] = sRe / lii;
    gIm[i] = sIm / lii;
  }
  return true;
}
