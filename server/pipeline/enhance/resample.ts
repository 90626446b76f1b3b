/**
 * 16 kHz ↔ 48 kHz by the integer factor 3, for the denoiser (which works at
 * 48 kHz only). One windowed-sinc low-pass (cut at 7.6 kHz, Kaiser window)
 * serves both directions, in polyphase form so no zero is ever multiplied.
 */

export const RESAMPLE_FACTOR = 3;
const TAPS_PER_PHASE = 32;
const CUTOFF_HZ = 7600;
const HIGH_RATE = 48_000;
const KAISER_BETA = 8;

/** Low-pass prototype at 48 kHz, TAPS_PER_PHASE × 3 + 1 taps (odd, so its delay is a whole sample), unity gain at DC. */
const PROTOTYPE: Float64Array = (() => {
  const length = TAPS_PER_PHASE * RESAMPLE_FACTOR + 1;
  const h = new Float64Array(length);
  const centre = (length - 1) / 2;
  const fc = CUTOFF_HZ / HIGH_RATE;
  let sum = 0;
  for (let i = 0; i < length; i++) {
    const t = i - centre;
    const sinc = t === 0 ? 2 * fc : Math.sin(2 * Math.PI * fc * t) / (Math.PI * t);
    const r = (2 * i) / (length - 1) - 1;
    h[i] = sinc * (besselI0(KAISER_BETA * Math.sqrt(Math.max(0, 1 - r * r))) / besselI0(KAISER_BETA));
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

function besselI0(v: number): number {
  let sum = 1;
  let term = 1;
  for (let k = 1; k < 50; k++) {
    term *= (v / (2 * k)) ** 2;
    sum += term;
    if (term < 1e-12 * sum) break;
  }
  return sum;
}
