/**
 * The one RIFF/WAVE reader and writer of the project, for 16-bit PCM: the
 * format the recorder writes (16 kHz mono), the recognizers' input files,
 * fixture meetings' recordings, and everything the simulator renders
 * (espeak-ng output, the rendered meeting, the deliberately broken fixtures).
 * Always the canonical 44-byte header.
 */

/** The gateway's own rate: recordings, fixture audio, the recognizers' input. */
export const WAV_SAMPLE_RATE = 16_000;
const HEADER_BYTES = 44;
const BITS_PER_SAMPLE = 16;

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
  const buf = Buffer.alloc(HEADER_BYTES + dataBytes);
  wavHeader(dataBytes, pcm.sampleRate, pcm.channels).copy(buf, 0);
  for (let i = 0; i < pcm.samples.length; i++) buf.writeInt16LE(pcm.samples[i]!, HEADER_BYTES + i * 2);
  return buf;
}

/** Wraps raw 16 kHz mono 16-bit little-endian PCM bytes in a RIFF/WAVE header. */
export function wavFromPcm16(pcm: Buffer): Buffer {
  return Buffer.concat([wavHeader(pcm.length), pcm]);
}

/**
 * The canonical 44-byte header of 16-bit PCM holding `dataBytes` bytes of
 * samples: the recorder writes it first with 0 and again with the final
 * size; the recognizers write it before their samples.
 */
export function wavHeader(dataBytes: number, sampleRate = WAV_SAMPLE_RATE, channels = 1): Buffer {
  const blockAlign = (channels * BITS_PER_SAMPLE) / 8;
  const header = Buffer.alloc(HEADER_BYTES);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(HEADER_BYTES - 8 + dataBytes, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16); // size of the fmt chunk
  header.writeUInt16LE(1, 20); // audio format 1 = PCM
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * blockAlign, 28); // byte rate
  header.writeUInt16LE(blockAlign, 32);
  header.writeUInt16LE(BITS_PER_SAMPLE, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

export interface ToneOptions {
  /** Length in seconds; default 1. */
  seconds?: number;
  /** Tone frequency in Hz; default 440. */
  frequency?: number;
  /** Peak amplitude as a fraction of full scale; default 0.05 (quiet). */
  amplitude?: number;
}

/**
 * A 16 kHz mono WAV holding a quiet sine tone: the recording file of fixture
 * meetings (CONTROL.md, Meetings: "audio: true gives the meeting a recording
 * file (a short generated WAV)").
 */
export function toneWav(opts: ToneOptions = {}): Buffer {
  const seconds = opts.seconds ?? 1;
  const frequency = opts.frequency ?? 440;
  const amplitude = opts.amplitude ?? 0.05;
  const samples = Math.round(seconds * WAV_SAMPLE_RATE);
  const pcm = Buffer.alloc(samples * 2);
  const peak = Math.round(amplitude * 32767);
  for (let i = 0; i < samples; i++) {
    pcm.writeInt16LE(Math.round(peak * Math.sin((2 * Math.PI * frequency * i) / WAV_SAMPLE_RATE)), i * 2);
  }
  return wavFromPcm16(pcm);
}
