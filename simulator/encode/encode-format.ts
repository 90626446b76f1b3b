/**
 * A rendered meeting (any audio ffmpeg reads, normally the 16 kHz WAV from
 * render-script.ts) → one of the ten import formats of API.md (Import:
 * mp4, m4a, wav, mp3, flac, ogg, aac, mkv, webm, wma).
 *
 * The video containers (mp4, mkv, webm) get a real video track, a small
 * solid-colour picture, because that is what meeting recordings exported from
 * video-call tools look like and the gateway must pick the audio out of them.
 * Codec choices per container: docs/decisions/009-synthetic-meetings.md.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { runTool } from '../run-tool.ts';
import { firstAvailableEncoder } from './ffmpeg-capabilities.ts';
import { probeMedia } from './probe-media.ts';

export const IMPORT_FORMATS = ['wav', 'mp3', 'flac', 'ogg', 'm4a', 'aac', 'wma', 'mp4', 'mkv', 'webm'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export function isImportFormat(value: string): value is ImportFormat {
  return (IMPORT_FORMATS as readonly string[]).includes(value);
}

/** The picture of the video track: small and slow, so it adds little size or encode time. */
export const VIDEO_SIZE = '160x120';
export const VIDEO_FPS = 5;
const VIDEO_COLOUR = '0x2b4f81';

interface Recipe {
  /** ffmpeg muxer (-f): set explicitly, so the output name's extension does not matter. */
  muxer: string;
  /** Audio encoders in order of preference. */
  audio: readonly string[];
  /** Video encoders in order of preference; absent for audio-only formats. */
  video?: readonly string[];
  /** Extra muxer options. */
  muxerArgs?: readonly string[];
}

const RECIPES: Record<ImportFormat, Recipe> = {
  wav: { muxer: 'wav', audio: ['pcm_s16le'] },
  mp3: { muxer: 'mp3', audio: ['libmp3lame', 'libshine'] },
  flac: { muxer: 'flac', audio: ['flac'] },
  // Vorbis is what ".ogg" has meant for most of its life; Opus gets its turn in webm.
  ogg: { muxer: 'ogg', audio: ['libvorbis', 'libopus'] },
  // faststart puts the index first, as files from phones and editors have it.
  m4a: { muxer: 'ipod', audio: ['aac'], muxerArgs: ['-movflags', '+faststart'] },
  aac: { muxer: 'adts', audio: ['aac'] },
  wma: { muxer: 'asf', audio: ['wmav2'] },
  mp4: { muxer: 'mp4', audio: ['aac'], video: ['libx264', 'mpeg4'], muxerArgs: ['-movflags', '+faststart'] },
  mkv: { muxer: 'matroska', audio: ['aac'], video: ['libx264', 'mpeg4'] },
  webm: { muxer: 'webm', audio: ['libopus', 'libvorbis'], video: ['libvpx', 'libvpx-vp9'] },
};

/** Per-encoder settings: modest bit rates (speech, not music) and the fastest video presets. */
const ENCODER_ARGS: Record<string, readonly string[]> = {
  libmp3lame: ['-b:a', '64k'],
  libshine: ['-b:a', '64k'],
  flac: ['-compression_level', '5'],
  libvorbis: ['-q:a', '4'],
  libopus: ['-b:a', '32k', '-application', 'voip'],
  aac: ['-b:a', '64k'],
  wmav2: ['-b:a', '64k'],
  libx264: ['-preset', 'ultrafast', '-tune', 'stillimage', '-pix_fmt', 'yuv420p'],
  mpeg4: ['-q:v', '10', '-pix_fmt', 'yuv420p'],
  libvpx: ['-b:v', '50k', '-deadline', 'realtime', '-cpu-used', '8'],
  'libvpx-vp9': ['-b:v', '50k', '-deadline', 'realtime', '-cpu-used', '8', '-row-mt', '1'],
};

export interface EncodeOptions {
  /** Written as the file's title tag. */
  title?: string;
  /** Resample on the way (e.g. 44100 or 48000 to look like a consumer recording); default keep the input's rate. */
  sampleRate?: number;
  /** Up-mix or down-mix; default keep the input's channels. */
  channels?: number;
}

export interface EncodedFile {
  file: string;
  format: ImportFormat;
  audioCodec: string;
  videoCodec?: string;
}

/** The ffmpeg arguments that turn `input` into `output` in `format`; exported so tests and the docs can show them. */
async function encodeArgs(
  input: string,
  format: ImportFormat,
  output: string,
  opts: EncodeOptions = {},
): Promise<{ args: string[]; audioCodec: string; videoCodec?: string }> {
  const recipe = RECIPES[format];
  const audioCodec = await firstAvailableEncoder(recipe.audio);
  const args = ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', '-i', input];
  let videoCodec: string | undefined;
  if (recipe.video !== undefined) {
    videoCodec = await firstAvailableEncoder(recipe.video);
    // The picture lasts as long as the sound, so neither track outlives the other.
    const probed = await probeMedia(input);
    if (!probed.ok || probed.probe.duration === undefined)
      throw new Error(`cannot read the duration of ${input}${probed.ok ? '' : `: ${probed.error}`}`);
    const d = probed.probe.duration.toFixed(3);
    args.push('-f', 'lavfi', '-i', `color=c=${VIDEO_COLOUR}:s=${VIDEO_SIZE}:r=${VIDEO_FPS}:d=${d}`);
    args.push('-map', '1:v:0', '-map', '0:a:0', '-c:v', videoCodec, ...(ENCODER_ARGS[videoCodec] ?? []));
  } else {
    args.push('-map', '0:a:0');
  }
  args.push('-c:a', audioCodec, ...(ENCODER_ARGS[audioCodec] ?? []));
  if (opts.sampleRate !== undefined) args.push('-ar', String(opts.sampleRate));
  if (opts.channels !== undefined) args.push('-ac', String(opts.channels));
  args.push('-map_metadata', '-1');
  if (opts.title !== undefined) args.push('-metadata', `title=${opts.title}`);
  // bitexact drops the encoder-version tags, so re-encoding gives the same bytes where the codec allows.
  args.push('-fflags', '+bitexact', '-flags:a', '+bitexact');
  if (videoCodec !== undefined) args.push('-flags:v', '+bitexact');
  args.push(...(recipe.muxerArgs ?? []), '-f', recipe.muxer, output);
  return { args, audioCodec, ...(videoCodec !== undefined ? { videoCodec } : {}) };
}

export async function encodeFormat(input: string, format: ImportFormat, output: string, opts: EncodeOptions = {}): Promise<EncodedFile> {
  const { args, audioCodec, videoCodec } = await encodeArgs(input, format, output, opts);
  await mkdir(path.dirname(path.resolve(output)), { recursive: true });
  await runTool('ffmpeg', args);
  return { file: output, format, audioCodec, ...(videoCodec !== undefined ? { videoCodec } : {}) };
}
