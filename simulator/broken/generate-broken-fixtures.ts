/**
 * Damaged files: each one claims an accepted extension but holds no usable
 * meeting audio. Built from a short rendered meeting (tiny by default) so the
 * damage is the only thing wrong with them, and written with a manifest.json
 * of { file, kind, expected, description }. `expected` is "failed" for bytes
 * that cannot be decoded; "kept" for a file that decodes to the wrong sound
 * (a lying sample rate): an import keeps it as a meeting, since what it holds
 * is audio the person may still want (docs/decisions/031).
 *
 * Everything is deterministic: the random bytes come from a seeded generator.
 */
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { encodeFormat, VIDEO_FPS, VIDEO_SIZE } from '../encode/encode-format.ts';
import type { ImportFormat } from '../encode/encode-format.ts';
import { firstAvailableEncoder } from '../encode/ffmpeg-capabilities.ts';
import { runTool } from '../run-tool.ts';
import { loadScript } from '../scripts/load-script.ts';
import { seededRandom } from '../seeded-random.ts';
import { renderScript } from '../synth/render-script.ts';

export const BROKEN_KINDS = ['truncated', 'random-bytes', 'lying-header', 'empty', 'no-audio-track'] as const;
type BrokenKind = (typeof BROKEN_KINDS)[number];

export interface BrokenFixture {
  file: string;
  kind: BrokenKind;
  expected: 'failed' | 'kept';
  description: string;
  /** Seconds of audio in the meeting the file was made from (absent when it was never audio). */
  source_duration?: number;
}

export interface BrokenFixtureOptions {
  /** Meeting script to damage; default "tiny". */
  script?: string;
  /** Seed of the random-bytes files; default 7. */
  seed?: number;
  cacheDir?: string;
}

/** Share of the bytes a truncated file keeps. */
const TRUNCATE_AT = 0.3;
const TRUNCATED_FORMATS: readonly ImportFormat[] = ['wav', 'mp3', 'flac', 'm4a'];
const RANDOM_BYTES = 64 * 1024;
/** What the lying WAV's sizes claim: just under 2 GB, the gateway's per-file cap. */
const CLAIMED_BYTES = 0x7fff_fff0;
/** What the other lying WAV's sample rate claims, against a true 16 kHz. */
const CLAIMED_RATE = 96_000;

/** Finds a chunk's header offset in a RIFF file. */
function chunkOffset(wav: Buffer, id: string): number {
  let offset = 12;
  while (offset + 8 <= wav.length) {
    if (wav.toString('ascii', offset, offset + 4) === id) return offset;
    const size = wav.readUInt32LE(offset + 4);
    offset += 8 + size + (size % 2);
  }
  throw new Error(`no ${id} chunk`);
}

export async function generateBrokenFixtures(outDir: string, opts: BrokenFixtureOptions = {}): Promise<BrokenFixture[]> {
  const work = await mkdtemp(path.join(tmpdir(), 'broken-fixtures-'));
  try {
    await mkdir(outDir, { recursive: true });
    const scriptName = opts.script ?? 'tiny';
    const source = path.join(work, 'meeting.wav');
    const rendered = await renderScript(
      await loadScript(scriptName),
      source,
      opts.cacheDir !== undefined ? { cacheDir: opts.cacheDir } : {},
    );
    const duration = rendered.duration;
    const fixtures: BrokenFixture[] = [];
    const add = async (
      file: string,
      bytes: Buffer,
      kind: BrokenKind,
      description: string,
      fromAudio = true,
      expected: BrokenFixture['expected'] = 'failed',
    ): Promise<void> => {
      await writeFile(path.join(outDir, file), bytes);
      fixtures.push({ file, kind, expected, description, ...(fromAudio ? { source_duration: duration } : {}) });
    };

    for (const format of TRUNCATED_FORMATS) {
      const whole = path.join(work, `whole.${format}`);
      await encodeFormat(source, format, whole);
      const bytes = await readFile(whole);
      const kept = Math.floor(bytes.length * TRUNCATE_AT);
      await add(
        `truncated.${format}`,
        bytes.subarray(0, kept),
        'truncated',
        `a valid ${format} file cut after ${kept} of its ${bytes.length} bytes (${TRUNCATE_AT * 100} %); its header still describes the whole meeting`,
      );
    }

    const rng = seededRandom(opts.seed ?? 7);
    await add('noise.wav', rng.bytes(RANDOM_BYTES), 'random-bytes', `${RANDOM_BYTES} seeded random bytes with a .wav name`, false);
    await add('noise.mp3', rng.bytes(RANDOM_BYTES), 'random-bytes', `${RANDOM_BYTES} seeded random bytes with a .mp3 name`, false);

    const wav = await readFile(source);
    const lyingSize = Buffer.from(wav);
    lyingSize.writeUInt32LE(CLAIMED_BYTES, 4); // RIFF size
    lyingSize.writeUInt32LE(CLAIMED_BYTES - 36, chunkOffset(wav, 'data') + 4);
    await add(
      'lying-size.wav',
      lyingSize,
      'lying-header',
      `RIFF and data chunk sizes claim about 2 GB (${CLAIMED_BYTES} bytes); the file holds ${wav.length}`,
    );

    const lyingRate = Buffer.from(wav);
    const fmt = chunkOffset(wav, 'fmt ') + 8;
    const channels = wav.readUInt16LE(fmt + 2);
    const blockAlign = wav.readUInt16LE(fmt + 12);
    lyingRate.writeUInt32LE(CLAIMED_RATE, fmt + 4); // sample rate
    lyingRate.writeUInt32LE(CLAIMED_RATE * blockAlign, fmt + 8); // byte rate, kept consistent so only the rate lies
    const trueRate = wav.readUInt32LE(fmt + 4);
    await add(
      'lying-rate.wav',
      lyingRate,
      'lying-header',
      `header claims ${CLAIMED_RATE} Hz for ${channels}-channel audio recorded at ${trueRate} Hz, so it plays ${CLAIMED_RATE / trueRate} times too fast and too short`,
      true,
      'kept',
    );

    await add('empty.wav', Buffer.alloc(0), 'empty', 'zero bytes', false);

    const videoCodec = await firstAvailableEncoder(['libx264', 'mpeg4']);
    const videoOnly = path.join(work, 'video-only.mp4');
    await runTool('ffmpeg', [
      '-hide_banner',
      '-nostdin',
      '-loglevel',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      `color=c=0x2b4f81:s=${VIDEO_SIZE}:r=${VIDEO_FPS}:d=${duration.toFixed(3)}`,
      '-c:v',
      videoCodec,
      '-pix_fmt',
      'yuv420p',
      '-an',
      '-fflags',
      '+bitexact',
      '-flags:v',
      '+bitexact',
      '-f',
      'mp4',
      videoOnly,
    ]);
    await add(
      'video-only.mp4',
      await readFile(videoOnly),
      'no-audio-track',
      `a valid mp4 with one ${videoCodec} video track and no audio track`,
      false,
    );

    await writeFile(path.join(outDir, 'manifest.json'), `${JSON.stringify(fixtures, null, 2)}\n`);
    return fixtures;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
