/**
 * The one FFT of the project: radix-2 complex, in place, on split
 * real/imaginary arrays. The dereverberation stage (short-time transforms),
 * the diarizer (MFCCs), the simulator's room convolution and its fidelity
 * check all use it. Written here rather than taken from npm: they need a
 * power-of-two size, split arrays and nothing else, which is forty lines.
 */

/** In-place complex FFT of a power-of-two length, on split real/imaginary arrays; twiddles computed once per size. */
export class Fft {
  readonly size: number;
  readonly #cos: Float64Array;
  readonly #sin: Float64Array;
  readonly #reverse: Uint32Array;

  constructor(size: number) {
    if (size < 2 || (size & (size - 1)) !== 0) throw new RangeError(`FFT size must be a power of two, got ${size}`);
    this.size = size;
    this.#cos = new Float64Array(size / 2);
    this.#sin = new Float64Array(size / 2);
    for (let i = 0; i < size / 2; i++) {
      this.#cos[i] = Math.cos((2 * Math.PI * i) / size);
      this.#sin[i] = -Math.sin((2 * Math.PI * i) / size);
    }
    this.#reverse = new Uint32Array(size);
    const bits = Math.log2(size);
    for (let i = 0; i < size; i++) {
      let r = 0;
      for (let b = 0; b < bits; b++) r |= ((i >> b) & 1) << (bits - 1 - b);
      this.#reverse[i] = r;
    }
  }

  /** Forward transform (e^{-i…}); `inverse` uses e^{+i…} and divides by the size. */
  transform(re: Float64Array, im: Float64Array, inverse = false): void {
    const n = this.size;
    const rev = this.#reverse;
    for (let i = 0; i < n; i++) {
      const j = rev[i]!;
      if (j > i) {
        const tr = re[i]!;
        re[i] = re[j]!;
        re[j] = tr;
        const ti = im[i]!;
        im[i] = im[j]!;
        im[j] = ti;
      }
    }
    const sign = inverse ? -1 : 1;
    for (let len = 2; len <= n; len <<= 1) {
      const half = len >> 1;
      const step = n / len;
      for (let start = 0; start < n; start += len) {
        for (let k = 0; k < half; k++) {
          const wr = this.#cos[k * step]!;
          const wi = sign * this.#sin[k * step]!;
          const a = start + k;
          const b = a + half;
          const xr = re[b]! * wr - im[b]! * wi;
          const xi = re[b]! * wi + im[b]! * wr;
          re[b] = re[a]! - xr;
          im[b] = im[a]! - xi;
          re[a] = re[a]! + xr;
          im[a] = im[a]! + xi;
        }
      }
    }
    if (inverse) {
      for (let i = 0; i < n; i++) {
        re[i] = re[i]! / n;
        im[i] = im[i]! / n;
      }
    }
  }
}

const transforms = new Map<number, Fft>();

/** In-place FFT of any power-of-two length (one Fft kept per size); `inverse` divides by the length. */
export function fft(re: Float64Array, im: Float64Array, inverse = false): void {
  const n = re.length;
  if (n !== im.length) throw new RangeError(`fft arrays differ in length: ${n} and ${im.length}`);
  let transform = transforms.get(n);
  if (transform === undefined) {
    transform = new Fft(n);
    transforms.set(n, transform);
  }
  transform.transform(re, im, inverse);
}
