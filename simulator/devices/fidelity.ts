/**
 * How faithfully a capture reproduces what a device played: the offset that
 * best aligns the two (by FFT cross-correlation) and the normalised
 * correlation at that offset (1 = identical up to gain). Pure.
 */
import { fft } from '../../common/audio/fft.ts';

export interface Alignment {
  /** Samples by which `captured` lags `played` (positive: the capture is late). */
  offsetSamples: number;
  offsetMs: number;
  /** Normalised cross-correlation over the overlap at that offset, -1..1. */
  correlation: number;
  /** Samples compared. */
  overlap: number;
}

/**
 * Finds where `played` sits inside `captured` (lags 0..maxLagSamples, the
 * capture being later) and how alike they are there.
 */
export function alignCapture(played: Int16Array, captured: Int16Array, maxLagSamples: number, sampleRate = 16_000): Alignment {
  const size = 1 << Math.ceil(Math.log2(played.length + captured.length));
  const ar = new Float64Array(size);
  const ai = new Float64Array(size);
  const br = new Float64Array(size);
  const bi = new Float64Array(size);
  for (let i = 0; i < played.length; i++) ar[i] = played[i]!;
  for (let i = 0; i < captured.length; i++) br[i] = captured[i]!;
  fft(ar, ai, false);
  fft(br, bi, false);
  // conj(A) · B: its inverse at lag L is Σ played[i] · captured[i + L].
  for (let i = 0; i < size; i++) {
    const r = ar[i]! * br[i]! + ai[i]! * bi[i]!;
    const im = ar[i]! * bi[i]! - ai[i]! * br[i]!;
    ar[i] = r;
    ai[i] = im;
  }
  fft(ar, ai, true);
  let best = 0;
  for (let lag = 1; lag <= Math.min(maxLagSamples, size - 1); lag++) if (ar[lag]! > ar[best]!) best = lag;
  return { ...correlationAt(played, captured, best), offsetSamples: best, offsetMs: (best * 1000) / sampleRate };
}

/** Normalised correlation of played[i] with captured[i + lag] over their overlap. */
function correlationAt(played: Int16Array, captured: Int16Array, lag: number): { correlation: number; overlap: number } {
  const overlap = Math.max(0, Math.min(played.length, captured.length - lag));
  let dot = 0;
  let pa = 0;
  let pb = 0;
  for (let i = 0; i < overlap; i++) {
    const a = played[i]!;
    const b = captured[i + lag]!;
    dot += a * b;
    pa += a * a;
    pb += b * b;
  }
  return { correlation: pa === 0 || pb === 0 ? 0 : dot / Math.sqrt(pa * pb), overlap };
}
