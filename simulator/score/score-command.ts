/**
 * `node simulator/cli.ts score`: any system's output of a rendered meeting
 * against its truth file (score-meeting.ts says what is measured), and
 * `truth-formats`, which writes a truth file's standard formats.
 *
 * Exit codes: 0 scored; 2 a bad command line, or a truth, hypothesis or
 * summary file that cannot be read or is malformed: one line naming the
 * file, where and what was expected. Every file is read and checked before
 * anything is scored.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { loadScript } from '../scripts/load-script.ts';
import { writeTruthFormats } from '../truth-formats/truth-formats.ts';
import type { TruthWords } from '../truth-formats/truth-formats.ts';
import { DIARIZATION_FORMATS, HypothesisFileError, TRANSCRIPT_FORMATS, readHypothesis } from './formats/read-hypothesis.ts';
import type { ReadHypothesis } from './formats/read-hypothesis.ts';
import type { KeyPoint } from './key-points.ts';
import { formatMeetingScore, scoreMeeting } from './score-meeting.ts';
import { ALIGNMENTS } from './word-error-rate.ts';
import type { Alignment } from './word-error-rate.ts';

export const SCORE_USAGE = `  node simulator/cli.ts score <truth.json> [--transcript <file>] [--diarization <file>] [--summary <file>]
                              [--transcript-format <f>] [--diarization-format <f>] [--script <name|path>]
                              [--collar <seconds>] [--ignore-overlap] [--alignment levenshtein|sclite] [--json]
      Score another system's output against a rendered meeting's truth file: WER (all words in
      time order, one alignment over the meeting), cpWER (each speaker's words concatenated,
      speakers paired for the fewest errors, as CHiME-6), DER (md-eval's), speakers found, and
      the key points a summary has.
      --transcript          ${TRANSCRIPT_FORMATS.join(', ')}
                            (api-json: the API's transcript or export JSON, or SegLST; api-export: the export
                            as txt or md; pocketsphinx: pocketsphinx_continuous -time yes); told from the
                            extension (.stm .ctm .srt .vtt .txt .json .md), or --transcript-format
      --diarization         ${DIARIZATION_FORMATS.join(', ')}; default: the transcript's own speakers and times
      --summary             plain text, or the API's summary or export JSON; default: the export's summary
      --script              the meeting script whose key_points the summary is scored on
      --collar              no-score collar around reference turn edges, seconds (md-eval -c); default 0.25
      --ignore-overlap      score DER only where one reference speaker talks (md-eval -1)
      --alignment           levenshtein (default): every edit counts 1, the least edits, as Kaldi and meeteval;
                            sclite: NIST sclite's weights (substitution 4, insertion or deletion 3), its counts
      --json                the figures as JSON
      A malformed file: one line "<file>: line <n>: expected ...", exit 2; nothing is scored.
  node simulator/cli.ts truth-formats <truth.json>
      Write the truth's RTTM, STM, CTM and SegLST (meeteval) beside it; render does this itself.`;

/** A mistake on the command line or in an input file: one line, exit 2. */
export class ScoreInputError extends Error {}

const TruthFile = z.object({
  words: z.array(z.object({ text: z.string(), start: z.number().nonnegative(), end: z.number().nonnegative(), speaker: z.string() })),
});

/** A truth file as the scorers need it; a ScoreInputError naming what is wrong. */
async function readTruth(file: string): Promise<TruthWords> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ScoreInputError(
      `${file}: ${code !== undefined ? `cannot be read (${code})` : `expected a truth file (JSON: ${(error as Error).message})`}`,
    );
  }
  const parsed = TruthFile.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ScoreInputError(
      `${file}: ${issue.path.join('.') || 'the top level'}: expected a truth file's words {text, start, end, speaker} (${issue.message})`,
    );
  }
  return parsed.data;
}

/** A summary file: plain text, or JSON with result.text (the API's summary) or summary.result.text (its export). */
async function readSummary(file: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ScoreInputError(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (!file.toLowerCase().endsWith('.json')) return text;
  const Summary = z.union([
    z.object({ result: z.object({ text: z.string() }) }),
    z.object({ summary: z.object({ result: z.object({ text: z.string() }) }) }),
  ]);
  let parsed;
  try {
    parsed = Summary.safeParse(JSON.parse(text));
  } catch (error) {
    throw new ScoreInputError(`${file}: expected JSON (${(error as Error).message})`);
  }
  if (!parsed.success)
    throw new ScoreInputError(`${file}: expected the API's summary {result: {text}} or export {summary: {result: {text}}}`);
  return 'result' in parsed.data ? parsed.data.result.text : parsed.data.summary.result.text;
}

function collarFlag(value: string | undefined): number {
  if (value === undefined) return 0.25;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new ScoreInputError(`--collar expects seconds ≥ 0, got "${value}"`);
  return n;
}

const SCORE_OPTIONS = {
  transcript: { type: 'string' },
  'transcript-format': { type: 'string' },
  diarization: { type: 'string' },
  'diarization-format': { type: 'string' },
  summary: { type: 'string' },
  script: { type: 'string' },
  collar: { type: 'string' },
  'ignore-overlap': { type: 'boolean' },
  alignment: { type: 'string' },
  json: { type: 'boolean' },
} as const;

async function keyPointsOf(script: string | undefined): Promise<KeyPoint[] | null> {
  if (script === undefined) return null;
  try {
    return (await loadScript(script)).key_points ?? [];
  } catch (error) {
    throw new ScoreInputError((error as Error).message.split('\n')[0]);
  }
}

/** Reads every input, checks it, scores, prints. Returns the exit code. */
export async function scoreCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: SCORE_OPTIONS });
  if (positionals.length !== 1) throw new ScoreInputError(`score expects one truth file, got ${positionals.length}`);
  if (values.transcript === undefined && values.diarization === undefined && values.summary === undefined) {
    throw new ScoreInputError('score needs at least one of --transcript, --diarization, --summary');
  }
  const collar = collarFlag(values.collar);
  const alignment = values.alignment ?? 'levenshtein';
  if (!(ALIGNMENTS as readonly string[]).includes(alignment))
    throw new ScoreInputError(`--alignment expects ${ALIGNMENTS.join(' or ')}, got "${alignment}"`);
  const truth = await readTruth(positionals[0]!);
  let transcript: ReadHypothesis | null = null;
  let diarization: ReadHypothesis | null = null;
  try {
    if (values.transcript !== undefined)
      transcript = await readHypothesis(values.transcript, values['transcript-format'], TRANSCRIPT_FORMATS);
    if (values.diarization !== undefined)
      diarization = await readHypothesis(values.diarization, values['diarization-format'], DIARIZATION_FORMATS);
  } catch (error) {
    if (error instanceof HypothesisFileError) throw new ScoreInputError(error.message);
    throw error;
  }
  const summary = values.summary !== undefined ? await readSummary(values.summary) : (transcript?.summary ?? null);
  const keyPoints = await keyPointsOf(values.script);
  if (summary !== null && values.summary !== undefined && keyPoints === null)
    throw new ScoreInputError('--summary needs --script: the script whose key_points it is scored on');
  const score = scoreMeeting({
    truth,
    words: transcript?.words ?? null,
    turns: diarization?.turns ?? transcript?.turns ?? null,
    summary,
    keyPoints,
    collarSeconds: collar,
    ignoreOverlap: values['ignore-overlap'] === true,
    alignment: alignment as Alignment,
  });
  const sources = {
    truth: positionals[0]!,
    transcript: transcript === null ? null : { file: transcript.file, format: transcript.format, words: transcript.words.length },
    diarization:
      diarization === null ? null : { file: diarization.file, format: diarization.format, turns: diarization.turns?.length ?? 0 },
  };
  if (values.json === true) process.stdout.write(`${JSON.stringify({ ...sources, ...score }, null, 2)}\n`);
  else {
    if (transcript !== null)
      process.stdout.write(`transcript  ${transcript.file} (${transcript.format}, ${transcript.words.length} words)\n`);
    if (diarization !== null)
      process.stdout.write(`diarization ${diarization.file} (${diarization.format}, ${diarization.turns?.length ?? 0} turns)\n`);
    process.stdout.write(formatMeetingScore(score));
  }
  return 0;
}

/** `truth-formats <truth.json>`: the standard formats of an existing truth file. */
export async function truthFormatsCommand(args: string[]): Promise<number> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  if (positionals.length !== 1) throw new ScoreInputError(`truth-formats expects one truth file, got ${positionals.length}`);
  const truth = await readTruth(positionals[0]!);
  const paths = await writeTruthFormats(truth, positionals[0]!);
  for (const p of Object.values(paths)) process.stdout.write(`${p}\n`);
  return 0;
}
