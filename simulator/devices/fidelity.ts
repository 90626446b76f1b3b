/**
 * How faithfully a capture reproduces what a device played: the offset that
 * best aligns the two (by FFT cross-correlation) and the normalised
 * correlation at that offset (1 = identical up to gain). Pure.
 */

/** In-place radix-2 FFT of (re, im); inverse when `inverse`. Length must be a power of two. */
function fft(re: Float64Array, im: Float64Array, inverse: boolean): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j]!, re[i]!];
      [im[i], im[j]] = [im[j]!, im[i]!];
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const angle = ((inverse ? 2 : -2) * Math.PI) / len;
    const wr = Math.cos(angle);
    const wi = Math.sin(angle);
    for (let i = 0; i < n; i += len) {
      let cr = 1;
      let ci = 0;
      for (let k = 0; k < len / 2; k++) {
        const a = i + k;
        const b = a + len / 2;
        const xr = re[b]! * cr - im[b]! * ci;
        const xi = re[b]! * ci + im[b]! * cr;
        re[b] = re[a]! - xr;
        im[b] = im[a]! - xi;
        re[a] = re[a]! + xr;
        im[a] = im[a]! + xi;
        const t = cr * wr - ci * wi;
        ci = cr * wi + ci * wr;
        cr = t;
      }
    }
  }
  if (inverse) for (let i = 0; i < n; i++) {
    re[i] = re[i]! / n;
    im[i] = im[i]! / n;
  }
}

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
export function correlationAt(played: Int16Array, captured: Int16Array, lag: number): { correlation: number; overlap: number } {
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
