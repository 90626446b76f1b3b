/**
 * One line spoken by Flite (Debian package flite), with word times taken
 * from Flite's own segment timing (segment-times.ts).
 *
 * Two calls per line: the sentence itself with -psdur (segments with end
 * times, audio to a file), and the line's words one per utterance with -ps
 * (which phones make each word). Text is passed with -t / -f, never through
 * a shell.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runTool } from '../run-tool.ts';
import { parseFliteSegments, parseFliteWordPhones, wordTimesFromSegments } from './segment-times.ts';
import type { WordTime } from './segment-times.ts';
import { parseWav } from '../../common/audio/wav.ts';
import type { Pcm16 } from '../../common/audio/wav.ts';

/**
 * The diphone voices' default mean pitch in Hz (Flite's kal voices set
 * int_f0_target_mean to 95). Only these voices follow that feature: the
 * clustergen voices (awb, rms, slt) predict their pitch from a model and
 * ignore it, so their pitch is shifted after synthesis (voices.ts).
 */
const DIPHONE_F0_MEAN = 95;
const DIPHONE_VOICES = new Set(['kal', 'kal16']);

export function fliteFollowsPitchTarget(voice: string): boolean {
  return DIPHONE_VOICES.has(voice);
}

export interface FliteRequest {
  voice: string;
  text: string;
  /** Words of the line as the truth spells them, in order. */
  words: readonly string[];
  /** Multiplies every duration: 1.1 speaks 10 % slower. */
  durationStretch: number;
  /** Semitones; only applied by the diphone voices (see fliteFollowsPitchTarget). */
  pitchShift: number;
}

export interface FliteLine {
  pcm: Pcm16;
  /** One span per word, in seconds from the clip's start; undefined when the phones could not be matched. */
  words: WordTime[] | undefined;
}

let versionPromise: Promise<string> | undefined;

export function fliteVersion(): Promise<string> {
  // flite --version exits with 1 after printing; the version line is what matters.
  versionPromise ??= runTool('flite', ['--version'], { allowFailure: true }).then((r) => {
    const line = r.stdout
      .toString('utf8')
      .split('\n')
      .find((l) => l.includes('version:'));
    if (line === undefined) throw new Error('flite --version printed no version; is flite installed?');
    return line.trim();
  });
  return versionPromise;
}

let voicesPromise: Promise<string[]> | undefined;

/** The voices compiled into the installed flite (`flite -lv`). */
function fliteVoices(): Promise<string[]> {
  voicesPromise ??= runTool('flite', ['-lv']).then((r) =>
    r.stdout
      .toString('utf8')
      .replace(/^.*?:/s, '')
      .trim()
      .split(/\s+/)
      .filter((v) => v.length > 0),
  );
  return voicesPromise;
}

function settings(req: FliteRequest): string[] {
  const args = ['-voice', req.voice, '--setf', `duration_stretch=${req.durationStretch.toFixed(4)}`];
  if (req.pitchShift !== 0 && fliteFollowsPitchTarget(req.voice)) {
    args.push('--setf', `int_f0_target_mean=${(DIPHONE_F0_MEAN * 2 ** (req.pitchShift / 12)).toFixed(3)}`);
  }
  return args;
}

export async function fliteSynthesize(req: FliteRequest): Promise<FliteLine> {
  const installed = await fliteVoices();
  if (!installed.includes(req.voice)) throw new Error(`flite has no voice "${req.voice}" (installed: ${installed.join(', ')})`);
  const work = await mkdtemp(path.join(tmpdir(), 'flite-line-'));
  try {
    const wav = path.join(work, 'line.wav');
    const spoken = await runTool('flite', [...settings(req), '-psdur', '-t', req.text.replace(/\s+/g, ' '), '-o', wav]);
    const pcm = parseWav(await readFile(wav));
    if (pcm.channels !== 1) throw new Error(`flite produced ${pcm.channels} channels; expected mono`);
    let words: WordTime[] | undefined;
    if (req.words.length > 0) {
      // A blank line ends an utterance in a text file: one line of phones per word.
      const list = path.join(work, 'words.txt');
      await writeFile(list, `${req.words.join('\n\n')}\n`);
      const phones = parseFliteWordPhones(
        (await runTool('flite', [...settings(req), '-ps', '-f', list, '-o', 'none'])).stdout.toString('utf8'),
      );
      if (phones.length === req.words.length) words = wordTimesFromSegments(phones, parseFliteSegments(spoken.stdout.toString('utf8')));
    }
    return { pcm, words };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
