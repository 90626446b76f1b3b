/**
 * Long signals convolved with room impulse responses: an in-place radix-2
 * FFT and overlap-add. A direct convolution of a meeting (millions of
 * samples) with a 0.7 s response (over ten thousand taps) would take hours;
 * by FFT it takes seconds. Blocks of the signal that are all zero (a speaker
 * who is silent there) are skipped, so per-speaker tracks cost about as much
 * as one mixed track. The FFT is the project's one (common/audio/fft.ts).
 */
import { fft } from '../../common/audio/fft.ts';

function nextPowerOfTwo(n: number): number {
  let p = 1;
  while (p < n) p <<= 1;
  return p;
}

/**
 * `signal` convolved with `ir`, cut to the signal's length (a tail that
 * rings past the end of the meeting is dropped: the render already ends with
 * silence, and the truth's duration must not change with the room).
 */
export function convolve(signal: Float32Array, ir: Float32Array): Float32Array {
  const out = new Float32Array(signal.length);
  if (ir.length === 0 || signal.length === 0) return out;
  const size = nextPowerOfTwo(Math.max(2 * ir.length, 8192));
  const block = size - ir.length + 1;
  const hr = new Float64Array(size);
  const hi = new Float64Array(size);
  hr.set(ir);
  fft(hr, hi);
  const xr = new Float64Array(size);
  const xi = new Float64Array(size);
  for (let start = 0; start < signal.length; start += block) {
    const end = Math.min(signal.length, start + block);
    let silent = true;
    for (let i = start; i < end; i++) {
      if (signal[i] !== 0) {
        silent = false;
        break;
      }
    }
    if (silent) continue;
    xr.fill(0);
    xi.fill(0);
    for (let i = start; i < end; i++) xr[i - start] = signal[i]!;
    fft(xr, xi);
    for (let k = 0; k < size; k++) {
      const r = xr[k]! * hr[k]! - xi[k]! * hi[k]!;
      xi[k] = xr[k]! * hi[k]! + xi[k]! * hr[k]!;
      xr[k] = r;
    }
    fft(xr, xi, true);
    const limit = Math.min(size, signal.length - start);
    for (let i = 0; i < limit; i++) out[start + i]! += xr[i]!;
  }
  return out;
}
