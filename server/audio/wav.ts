/**
 * A tiny generator of valid PCM WAV files, used to give fixture meetings a
 * recording file (CONTROL.md, Meetings: "audio: true gives the meeting a
 * recording file (a short generated WAV)").
 *
 * The format is the one the recorder writes: 16 kHz, mono, 16-bit signed
 * little-endian PCM in a canonical 44-byte RIFF header.
 */

export const WAV_SAMPLE_RATE = 16_000;
const CHANNELS = 1;
const BITS_PER_SAMPLE = 16;
const HEADER_BYTES = 44;

export interface ToneOptions {
  /** Length in seconds; default 1. */
  seconds?: number;
  /** Tone frequency in Hz; default 440. */
  frequency?: number;
  /** Peak amplitude as a fraction of full scale; default 0.05 (quiet). */
  amplitude?: number;
}

/** A WAV file holding a quiet sine tone. */
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

/** Wraps raw 16 kHz mono 16-bit PCM in a RIFF/WAVE header. */
export function wavFromPcm16(pcm: Buffer): Buffer {
  return Buffer.concat([wavHeader(pcm.length), pcm]);
}

/**
 * The canonical 44-byte header of mono 16-bit PCM holding `dataBytes` bytes
 * of samples: fixture recordings, the recorder's file, the recognizer's input.
 */
export function wavHeader(dataBytes: number, sampleRate = WAV_SAMPLE_RATE): Buffer {
  const blockAlign = (CHANNELS * BITS_PER_SAMPLE) / 8;
  const header = Buffer.alloc(HEADER_BYTES);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(HEADER_BYTES - 8 + dataBytes, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16); // size of the fmt chunk
  header.writeUInt16LE(1, 20); // audio format 1 = PCM
  header.writeUInt16LE(CHANNELS, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * blockAlign, 28); // byte rate
  header.writeUInt16LE(blockAlign, 32);
  header.writeUInt16LE(BITS_PER_SAMPLE, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}
