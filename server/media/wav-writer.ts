/**
 * The recording's audio file, written as it arrives: a 16 kHz mono 16-bit
 * WAV on disk, never only in memory. The header's sizes are brought up to
 * date every second of audio and at close, so the file is a valid WAV of
 * everything captured so far at any moment, even if the application dies.
 *
 * Writes are synchronous: a second of audio is 32 kB, and a synchronous
 * close lets shutdown (which cannot wait) complete the file.
 */
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { wavHeader } from '../../common/audio/wav.ts';

export const RECORDING_SAMPLE_RATE = 16_000;
const HEADER_BYTES = 44;

export class WavWriter {
  #fd: number | null;
  #samples = 0;
  #headerAt = 0;

  /** Creates the file (which must not exist) with an empty header. */
  constructor(path: string) {
    this.#fd = openSync(path, 'wx', 0o600);
    writeSync(this.#fd, wavHeader(0), 0, HEADER_BYTES, 0);
  }

  get samples(): number {
    return this.#samples;
  }

  get seconds(): number {
    return this.#samples / RECORDING_SAMPLE_RATE;
  }

  get open(): boolean {
    return this.#fd !== null;
  }

  append(samples: Int16Array): void {
    if (this.#fd === null || samples.length === 0) return;
    const buf = Buffer.alloc(samples.length * 2);
    for (let i = 0; i < samples.length; i++) buf.writeInt16LE(samples[i]!, i * 2);
    writeSync(this.#fd, buf, 0, buf.length, HEADER_BYTES + this.#samples * 2);
    this.#samples += samples.length;
    if (this.#samples - this.#headerAt >= RECORDING_SAMPLE_RATE) this.#updateHeader();
  }

  /** Completes the header and closes the file. Idempotent. */
  close(): void {
    if (this.#fd === null) return;
    this.#updateHeader();
    try {
      fsyncSync(this.#fd);
    } catch {
      // a file system without fsync still has the data
    }
    closeSync(this.#fd);
    this.#fd = null;
  }

  #updateHeader(): void {
    if (this.#fd === null) return;
    writeSync(this.#fd, wavHeader(this.#samples * 2), 0, HEADER_BYTES, 0);
    this.#headerAt = this.#samples;
  }
}
