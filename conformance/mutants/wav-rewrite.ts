/**
 * Rewrites the samples of a 16-bit PCM WAV upload as it streams through the
 * variant proxy (conformance/mutants/variants.ts), keeping every byte count:
 * the header passes unchanged, each sample of the data chunk is replaced by
 * what `rewrite` puts in its place. Anything else (another format, a header
 * that does not parse, bytes that are not audio) passes through unchanged, so
 * undecodable uploads stay undecodable.
 */
import { Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';

interface WavFormat {
  channels: number;
  sampleRate: number;
}

/**
 * Replaces `samples` in place; `at` is the index (in samples, all channels
 * interleaved) of samples[0] within the data chunk.
 */
export type SampleRewrite = (samples: Int16Array, at: number, format: WavFormat) => void;

/** The longest header the rewriter waits for before it gives up and passes the bytes through. */
const MAX_HEADER_BYTES = 64 * 1024;

type Parsed = { kind: 'pass' } | { kind: 'more' } | { kind: 'pcm'; dataStart: number; dataBytes: number; format: WavFormat };

/** Finds the data chunk of a RIFF/WAVE 16-bit PCM header in `head` (the first bytes of the upload). */
export function parseWavHeader(head: Buffer): Parsed {
  if (head.length < 12) return head.length >= 4 && head.subarray(0, 4).toString('latin1') !== 'RIFF' ? { kind: 'pass' } : { kind: 'more' };
  if (head.subarray(0, 4).toString('latin1') !== 'RIFF' || head.subarray(8, 12).toString('latin1') !== 'WAVE') return { kind: 'pass' };
  let at = 12;
  let format: WavFormat | null = null;
  while (at + 8 <= head.length) {
    const id = head.subarray(at, at + 4).toString('latin1');
    const size = head.readUInt32LE(at + 4);
    if (id === 'fmt ') {
      if (at + 8 + 16 > head.length) return { kind: 'more' };
      const audioFormat = head.readUInt16LE(at + 8);
      const bits = head.readUInt16LE(at + 22);
      if (audioFormat !== 1 || bits !== 16) return { kind: 'pass' };
      format = { channels: head.readUInt16LE(at + 10), sampleRate: head.readUInt32LE(at + 12) };
    } else if (id === 'data') {
      return format === null ? { kind: 'pass' } : { kind: 'pcm', dataStart: at + 8, dataBytes: size, format };
    }
    at += 8 + size + (size % 2);
  }
  return { kind: 'more' };
}

/** A byte-count-preserving Transform that rewrites the PCM samples of a WAV stream. */
export function wavSampleRewriter(rewrite: SampleRewrite): Transform {
  let head: Buffer | null = Buffer.alloc(0);
  let state: { kind: 'pass' } | { kind: 'pcm'; left: number; at: number; odd: Buffer | null; format: WavFormat } | null = null;

  const samples = (t: Transform, chunk: Buffer): void => {
    if (state?.kind !== 'pcm') {
      t.push(chunk);
      return;
    }
    let bytes = chunk;
    // Bytes after the data chunk (trailing chunks) pass through.
    const inData = Math.min(bytes.length, state.left);
    const tail = bytes.subarray(inData);
    bytes = bytes.subarray(0, inData);
    state.left -= inData;
    if (state.odd !== null) {
      bytes = Buffer.concat([state.odd, bytes]);
      state.odd = null;
    }
    const whole = bytes.length - (bytes.length % 2);
    if (whole > 0) {
      const copy = Buffer.from(bytes.subarray(0, whole));
      const view = new Int16Array(copy.buffer, copy.byteOffset, whole / 2);
      rewrite(view, state.at, state.format);
      state.at += view.length;
      t.push(copy);
    }
    if (whole < bytes.length) {
      // Half a sample: kept for the next chunk, or sent as it is when the data chunk ends here.
      if (state.left > 0) state.odd = bytes.subarray(whole);
      else t.push(bytes.subarray(whole));
    }
    if (tail.length > 0) t.push(tail);
  };

  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      if (state !== null) {
        samples(this, chunk);
        done();
        return;
      }
      head = Buffer.concat([head ?? Buffer.alloc(0), chunk]);
      const parsed = parseWavHeader(head);
      if (parsed.kind === 'more' && head.length < MAX_HEADER_BYTES) {
        done();
        return;
      }
      const all = head;
      head = null;
      if (parsed.kind !== 'pcm' || parsed.format.channels < 1) {
        state = { kind: 'pass' };
        this.push(all);
      } else {
        state = { kind: 'pcm', left: parsed.dataBytes, at: 0, odd: null, format: parsed.format };
        this.push(all.subarray(0, parsed.dataStart));
        samples(this, all.subarray(parsed.dataStart));
      }
      done();
    },
    flush(done: TransformCallback) {
      if (head !== null && head.length > 0) this.push(head);
      if (state?.kind === 'pcm' && state.odd !== null) this.push(state.odd);
      done();
    },
  });
}
