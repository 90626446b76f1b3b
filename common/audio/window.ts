/**
 * Window functions and the Bessel function behind the Kaiser window, for the
 * resamplers' filters (resample.ts) and the short-time Fourier transforms
 * (the dereverberation stage).
 */

/** Modified Bessel function of the first kind, order 0 (for the Kaiser window), by its power series. */
export function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  const q = (x * x) / 4;
  for (let k = 1; k < 50; k++) {
    term *= q / (k * k);
    sum += term;
    if (term < sum * 1e-12) break;
  }
  return sum;
}

/** Periodic Hann window's square root: analysis and synthesis with it at hop size/4 sum to a constant. */
export function sqrtHann(size: number): Float64Array {
  const w = new Float64Array(size);
  for (let i = 0; i < size; i++) w[i] = Math.sqrt(0.5 - 0.5 * Math.cos((2 * Math.PI * i) / size));
  return w;
}
