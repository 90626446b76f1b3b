/**
 * Raw 16-bit PCM read off a pipe (a capture tool's stdout, a virtual device's
 * player): samples from little-endian bytes, carrying an odd trailing byte over to
 * the next chunk (a pipe may split a sample).
 */
export class PcmReader {
  #carry: Buffer | null = null;

  push(chunk: Buffer): Int16Array {
    const buf = this.#carry === null ? chunk : Buffer.concat([this.#carry, chunk]);
    const whole = buf.length - (buf.length % 2);
    this.#carry = whole < buf.length ? buf.subarray(whole) : null;
    const out = new Int16Array(whole / 2);
    for (let i = 0; i < out.length; i++) out[i] = buf.readInt16LE(i * 2);
    return out;
  }
}
