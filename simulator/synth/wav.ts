/**
 * Minimal RIFF/WAVE reading and writing for 16-bit PCM, the only sample
 * format the simulator handles itself (espeak-ng output, the rendered
 * meeting, and the deliberately broken fixtures).
 */

export interface Pcm16 {
  sampleRate: number;
  channels: number;
  /** Interleaved samples when channels > 1. */
  samples: Int16Array;
}

/**
 * Reads a 16-bit PCM WAV. Tolerates the size placeholders a streaming writer
 * leaves behind: espeak-ng --stdout writes 0x7ffff000 as the data size, so a
 * data chunk that claims more bytes than the buffer holds runs to the end.
 */
export function parseWav(buf: Buffer): Pcm16 {
  if (buf.length < 12 || buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error('not a RIFF/WAVE file');
  }
  let offset = 12;
  let format: { audioFormat: number; channels: number; sampleRate: number; bits: number } | undefined;
  while (offset + 8 <= buf.length) {
    const id = buf.toString('ascii', offset, offset + 4);
    const size = buf.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') {
      format = {
        audioFormat: buf.readUInt16LE(body),
        channels: buf.readUInt16LE(body + 2),
        sampleRate: buf.readUInt32LE(body + 4),
        bits: buf.readUInt16LE(body + 14),
      };
    } else if (id === 'data') {
      if (format === undefined) throw new Error('WAV data chunk before its fmt chunk');
      if (format.audioFormat !== 1 || format.bits !== 16) {
        throw new Error(`expected 16-bit PCM WAV, got format ${format.audioFormat} with ${format.bits} bits`);
      }
      const end = Math.min(buf.length, body + size);
      const bytes = end - body - ((end - body) % 2);
      // Copy so the samples are aligned and independent of the source buffer.
      const samples = new Int16Array(bytes / 2);
      for (let i = 0; i < samples.length; i++) samples[i] = buf.readInt16LE(body + i * 2);
      return { sampleRate: format.sampleRate, channels: format.channels, samples };
    }
    offset = body + size + (size % 2); // chunks are padded to even sizes
  }
  throw new Error('WAV has no data chunk');
}

/** A canonical 44-byte-header WAV holding 16-bit little-endian PCM. */
export function encodeWav(pcm: Pcm16): Buffer {
  const dataBytes = pcm.samples.length * 2;
  const buf = Buffer.alloc(44 + dataBytes);
  const blockAlign = pcm.channels * 2;
  buf.write('RIFF', 0, 'ascii');
  buf.writeUInt32LE(36 + dataBytes, 4);
  buf.write('WAVE', 8, 'ascii');
  buf.write('fmt ', 12, 'ascii');
  buf.writeUInt32LE(16, 16);
  buf.writeUInt16LE(1, 20); // PCM
  buf.writeUInt16LE(pcm.channels, 22);
  buf.writeUInt32LE(pcm.sampleRate, 24);
  buf.writeUInt32LE(pcm.sampleRate * blockAlign, 28);
  buf.writeUInt16LE(blockAlign, 32);
  buf.writeUInt16LE(16, 34);
  buf.write('data', 36, 'ascii');
  buf.writeUInt32LE(dataBytes, 40);
  for (let i = 0; i < pcm.samples.length; i++) buf.writeInt16LE(pcm.samples[i]!, 44 + i * 2);
  return buf;
}
