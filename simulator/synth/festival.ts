/**
 * One line spoken by Festival (Debian packages festival and a voice such as
 * festvox-us-slt-hts), with word times from Festival's own utterance
 * structure.
 *
 * Festival runs a small Scheme program in batch mode: select the voice, set
 * rate and pitch (HTS engine options -r and -fm), synthesize the text, save
 * the wave, and print every token with the start of its first segment and
 * the end of its last one. The text goes into a Scheme string literal with
 * backslashes and quotes escaped, so no line can break out of it.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runTool } from '../run-tool.ts';
import type { WordTime } from './segment-times.ts';
import { parseWav } from '../../common/audio/wav.ts';
import type { Pcm16 } from '../../common/audio/wav.ts';

export interface FestivalRequest {
  /** A voice name as (voice.list) gives it, e.g. cmu_us_slt_arctic_hts. */
  voice: string;
  text: string;
  /** Number of words in the line as the truth counts them. */
  wordCount: number;
  /** Speaking speed factor (HTS -r): 1.1 speaks 10 % faster. */
  speed: number;
  /** Semitones added to the voice's pitch (HTS -fm). */
  pitchShift: number;
}

export interface FestivalLine {
  pcm: Pcm16;
  words: WordTime[] | undefined;
}

const VOICE_NAME = /^[a-z0-9_]+$/;

let versionPromise: Promise<string> | undefined;

export function festivalVersion(): Promise<string> {
  versionPromise ??= runTool('festival', ['--version']).then((r) => r.stdout.toString('utf8').trim());
  return versionPromise;
}

let voicesPromise: Promise<string[]> | undefined;

/** Installed Festival voices, from (voice.list). */
function festivalVoices(): Promise<string[]> {
  voicesPromise ??= (async () => {
    const work = await mkdtemp(path.join(tmpdir(), 'festival-voices-'));
    try {
      await writeFile(path.join(work, 'list.scm'), '(format t "VOICES %l\\n" (voice.list))\n');
      const out = (await runTool('festival', ['-b', path.join(work, 'list.scm')])).stdout.toString('utf8');
      const row = out.split('\n').find((l) => l.startsWith('VOICES ')) ?? '';
      return row
        .slice('VOICES '.length)
        .replace(/[()]/g, ' ')
        .trim()
        .split(/\s+/)
        .filter((v) => v.length > 0);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  })();
  return voicesPromise;
}

/** A Scheme string literal holding `text` on one line. */
export function schemeString(text: string): string {
  return `"${text.replace(/\s+/g, ' ').replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** The Scheme program for one line; exported for the tests. */
export function festivalProgram(req: FestivalRequest, wavPath: string): string {
  if (!VOICE_NAME.test(req.voice)) throw new Error(`"${req.voice}" is not a Festival voice name`);
  const hts = req.voice.endsWith('_hts');
  return [
    `(voice_${req.voice})`,
    hts
      ? `(set! hts_engine_params (append hts_engine_params (list (list "-r" ${req.speed.toFixed(4)}) (list "-fm" ${req.pitchShift.toFixed(3)}))))`
      : `(Parameter.set 'Duration_Stretch ${(1 / req.speed).toFixed(4)})`,
    `(set! line_utt (Utterance Text ${schemeString(req.text)}))`,
    '(utt.synth line_utt)',
    `(utt.save.wave line_utt ${schemeString(wavPath)} 'riff)`,
    // One row per word: the index of its token, when its first segment starts and its last ends.
    '(set! line_token 0)',
    '(mapcar (lambda (tok)',
    '  (set! line_token (+ 1 line_token))',
    '  (mapcar (lambda (w) (format t "WORDTIME %d %s %s\\n" line_token',
    '      (item.feat w "R:SylStructure.daughter1.daughter1.R:Segment.p.end")',
    '      (item.feat w "R:SylStructure.daughtern.daughtern.end")))',
    '    (item.daughters tok)))',
    "  (utt.relation.items line_utt 'Token))",
    '',
  ].join('\n');
}

/**
 * Festival's rows → one span per token that has words. Festival splits tokens
 * at white space as the truth does, so the spoken tokens are the truth's
 * words in order; undefined when the counts differ.
 */
export function parseFestivalWordTimes(output: string, wordCount: number): WordTime[] | undefined {
  const byToken = new Map<number, WordTime>();
  for (const row of output.split('\n')) {
    const m = /^WORDTIME (\d+) (\S+) (\S+)$/.exec(row.trim());
    if (m === null) continue;
    const start = Number(m[2]);
    const end = Number(m[3]);
    if (!Number.isFinite(start) || !Number.isFinite(end) || end <= 0) continue; // a word without segments
    const token = Number(m[1]);
    const seen = byToken.get(token);
    if (seen === undefined) byToken.set(token, { start, end });
    else seen.end = Math.max(seen.end, end);
  }
  const spans = [...byToken.entries()].sort((a, b) => a[0] - b[0]).map(([, t]) => t);
  return spans.length === wordCount ? spans : undefined;
}

export async function festivalSynthesize(req: FestivalRequest): Promise<FestivalLine> {
  const installed = await festivalVoices();
  if (!installed.includes(req.voice))
    throw new Error(`festival has no voice "${req.voice}" (installed: ${installed.join(', ') || 'none'})`);
  const work = await mkdtemp(path.join(tmpdir(), 'festival-line-'));
  try {
    const wav = path.join(work, 'line.wav');
    await writeFile(path.join(work, 'line.scm'), festivalProgram(req, wav));
    const out = await runTool('festival', ['-b', path.join(work, 'line.scm')]);
    const pcm = parseWav(await readFile(wav));
    if (pcm.channels !== 1) throw new Error(`festival produced ${pcm.channels} channels; expected mono`);
    return { pcm, words: parseFestivalWordTimes(out.stdout.toString('utf8'), req.wordCount) };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
