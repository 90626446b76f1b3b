/**
 * What the line between the room and the recorder does to the sound: a
 * telephone band (300–3400 Hz, 8 kHz, G.711 mu-law), low-bitrate codecs
 * (Opus, MP3), clipping and short dropouts. Codecs run for real through
 * ffmpeg and are decoded back to float samples at the render's rate, cut or
 * padded to the input's length so the truth's times stay where they are
 * (ffmpeg honours the encoder delay both formats record: Opus pre-skip, the
 * LAME gapless header).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runTool } from '../run-tool.ts';
import { seededRandom } from '../seeded-random.ts';

const BITEXACT = ['-fflags', '+bitexact', '-flags:a', '+bitexact'];

async function roundTrip(x: Float32Array, sampleRate: number, encode: readonly string[], container: string): Promise<Float32Array> {
  const input = Buffer.from(x.buffer, x.byteOffset, x.byteLength);
  // A seekable file, not a pipe: only then can the MP3 muxer go back and
  // write the header that tells the decoder how many delay samples to drop.
  const dir = await mkdtemp(path.join(tmpdir(), 'simulator-channel-'));
  const file = path.join(dir, `coded.${container}`);
  let decoded;
  try {
    await runTool(
      'ffmpeg',
      [
        '-hide_banner',
        '-nostdin',
        '-loglevel',
        'error',
        '-f',
        'f32le',
        '-ar',
        String(sampleRate),
        '-ac',
        '1',
        '-i',
        'pipe:0',
        ...encode,
        ...BITEXACT,
        '-f',
        container,
        file,
      ],
      { input },
    );
    decoded = await runTool('ffmpeg', [
      '-hide_banner',
      '-nostdin',
      '-loglevel',
      'error',
      '-i',
      file,
      '-ar',
      String(sampleRate),
      '-ac',
      '1',
      ...BITEXACT,
      '-f',
      'f32le',
      'pipe:1',
    ]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const bytes = decoded.stdout;
  const got = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength - (bytes.byteLength % 4)));
  const out = new Float32Array(x.length);
  out.set(got.subarray(0, x.length));
  return out;
}

/** Telephone: band-limited to 300–3400 Hz, 8 kHz, mu-law, back to the render's rate. */
export function telephoneBand(x: Float32Array, sampleRate: number): Promise<Float32Array> {
  return roundTrip(x, sampleRate, ['-af', 'highpass=f=300,lowpass=f=3400', '-ar', '8000', '-c:a', 'pcm_mulaw'], 'wav');
}

/** Opus at `kbps` kilobits per second (speech mode), decoded back. */
export function opusCodec(x: Float32Array, sampleRate: number, kbps: number): Promise<Float32Array> {
  return roundTrip(x, sampleRate, ['-c:a', 'libopus', '-b:a', `${kbps}k`, '-application', 'voip'], 'ogg');
}

/** MP3 at `kbps` kilobits per second (constant bitrate), decoded back. */
export function mp3Codec(x: Float32Array, sampleRate: number, kbps: number): Promise<Float32Array> {
  return roundTrip(x, sampleRate, ['-c:a', 'libmp3lame', '-b:a', `${kbps}k`], 'mp3');
}

/** Hard clipping at `thresholdDb` below the signal's peak (an overdriven input stage). */
export function clip(x: Float32Array, thresholdDb: number): Float32Array {
  let peak = 0;
  for (const v of x) peak = Math.max(peak, Math.abs(v));
  const limit = peak * 10 ** (-Math.abs(thresholdDb) / 20);
  const out = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = Math.max(-limit, Math.min(limit, x[i]!));
  return out;
}

/**
 * Short dropouts: about `perMinute` gaps a minute of `ms` milliseconds of
 * silence at seeded random places (lost packets, a loose cable), with 2 ms
 * ramps so each gap does not click.
 */
export function dropouts(x: Float32Array, sampleRate: number, perMinute: number, ms: number, seed: number): Float32Array {
  const out = Float32Array.from(x);
  const r = seededRandom(seed);
  const count = Math.round((perMinute * x.length) / (60 * sampleRate));
  const gap = Math.round((ms / 1000) * sampleRate);
  const ramp = Math.max(1, Math.round(0.002 * sampleRate));
  for (let k = 0; k < count; k++) {
    const start = Math.floor(r.next() * Math.max(1, x.length - gap));
    for (let i = -ramp; i < gap + ramp; i++) {
      const at = start + i;
      if (at < 0 || at >= out.length) continue;
      const g = i < 0 ? -i / ramp : i >= gap ? (i - gap + 1) / ramp : 0;
      out[at]! *= Math.min(1, g);
    }
  }
  return out;
}
