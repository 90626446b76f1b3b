/**
 * Scores another system's output of one meeting against the simulator's
 * ground truth (docs/decisions/112-simulator-score.md): WER over all words
 * in time order (what sclite reports for the truth's CTM), cpWER (CHiME-6's
 * speaker-attributed WER), DER with md-eval's collar and overlap options,
 * the speaker count, and a summary's key points. The reference is the truth
 * as its standard formats carry it (truth-formats.ts): its scoring tokens and
 * its word-merged speaker turns. Pure: no I/O, no clock.
 */
import { concatenatedPermutationWer, wordsBySpeaker } from './cpwer.ts';
import type { ConcatenatedPermutationWer } from './cpwer.ts';
import { diarizationErrorRate } from './der.ts';
import type { DiarizationErrorRate, DiarizationTurn } from './der.ts';
import type { HypothesisWord } from './formats/hypothesis.ts';
import { scoreKeyPoints } from './key-points.ts';
import type { KeyPoint, KeyPointScore } from './key-points.ts';
import { wordErrorRate } from './word-error-rate.ts';
import type { Alignment } from './word-error-rate.ts';
import type { WordErrorRate } from './word-error-rate.ts';
import { speakerTurns, truthTokens } from '../truth-formats/truth-formats.ts';
import type { TruthWords } from '../truth-formats/truth-formats.ts';

export interface ScoreInputs {
  truth: TruthWords;
  /** The transcript's words in time order (null: no transcript given). */
  words: readonly HypothesisWord[] | null;
  /** Who spoke when (null: no diarization given and the transcript has none). */
  turns: readonly DiarizationTurn[] | null;
  summary: string | null;
  keyPoints: readonly KeyPoint[] | null;
  collarSeconds: number;
  ignoreOverlap: boolean;
  /** How WER and cpWER align words (word-error-rate.ts); default levenshtein. */
  alignment?: Alignment;
}

export interface MeetingScore {
  reference: { words: number; speakers: number; turns: number };
  wer: WordErrorRate | null;
  /** Null with `cpwer_unavailable` saying why (no speakers in the transcript and no diarization to give them). */
  cpwer: ConcatenatedPermutationWer | null;
  cpwer_unavailable: string | null;
  der: (DiarizationErrorRate & { collar_seconds: number; ignore_overlap: boolean }) | null;
  speakers: { reference: number; hypothesis: number } | null;
  key_points: KeyPointScore | null;
}

/**
 * The speaker a word without one gets from a diarization: the turn that
 * overlaps the word most; under overlapping speech, of turns overlapping it
 * equally, the one that started last (a word starting under a running turn
 * more likely belongs to the newcomer); a word in no turn takes the nearest.
 */
export function speakerAt(turns: readonly DiarizationTurn[], start: number, end: number): string | null {
  let best: DiarizationTurn | null = null;
  let bestOverlap = 0;
  for (const t of turns) {
    const overlap = Math.min(end, t.end) - Math.max(start, t.start);
    if (overlap > bestOverlap || (overlap === bestOverlap && overlap > 0 && best !== null && t.start > best.start)) {
      best = t;
      bestOverlap = overlap;
    }
  }
  if (best !== null) return best.speaker;
  const mid = (start + end) / 2;
  let bestDistance = Infinity;
  for (const t of turns) {
    const distance = mid < t.start ? t.start - mid : mid > t.end ? mid - t.end : 0;
    if (distance < bestDistance) {
      best = t;
      bestDistance = distance;
    }
  }
  return best?.speaker ?? null;
}

/** The transcript's words with a speaker each: their own, else the diarization's at their time. */
function attributedWords(
  words: readonly HypothesisWord[],
  turns: readonly DiarizationTurn[] | null,
): { text: string; speaker: string }[] | string {
  if (words.every((w) => w.speaker !== null)) return words.map((w) => ({ text: w.text, speaker: w.speaker! }));
  if (turns === null || turns.length === 0) return 'the transcript names no speakers and no diarization was given';
  if (words.some((w) => w.start === null || w.end === null))
    return 'the transcript has no word times to take speakers from the diarization';
  return words.map((w) => ({ text: w.text, speaker: w.speaker ?? speakerAt(turns, w.start!, w.end!) ?? '' }));
}

export function scoreMeeting(inputs: ScoreInputs): MeetingScore {
  const tokens = truthTokens(inputs.truth);
  const refTurns = speakerTurns(tokens);
  const refSpeakers = new Set(tokens.map((t) => t.speaker)).size;
  let wer: WordErrorRate | null = null;
  let cpwer: ConcatenatedPermutationWer | null = null;
  let cpwerUnavailable: string | null = null;
  if (inputs.words !== null) {
    wer = wordErrorRate(
      tokens.map((t) => t.word),
      inputs.words.map((w) => w.text),
      inputs.alignment,
    );
    const attributed = attributedWords(inputs.words, inputs.turns);
    if (typeof attributed === 'string') cpwerUnavailable = attributed;
    else
      cpwer = concatenatedPermutationWer(
        wordsBySpeaker(tokens.map((t) => ({ text: t.word, speaker: t.speaker }))),
        wordsBySpeaker(attributed),
        inputs.alignment,
      );
  }
  const der =
    inputs.turns === null
      ? null
      : {
          ...diarizationErrorRate(refTurns, inputs.turns, { collarSeconds: inputs.collarSeconds, ignoreOverlap: inputs.ignoreOverlap }),
          collar_seconds: inputs.collarSeconds,
          ignore_overlap: inputs.ignoreOverlap,
        };
  const hypSpeakers =
    inputs.turns !== null
      ? new Set(inputs.turns.filter((t) => t.end > t.start).map((t) => t.speaker)).size
      : inputs.words !== null && inputs.words.some((w) => w.speaker !== null)
        ? new Set(inputs.words.map((w) => w.speaker).filter((s) => s !== null)).size
        : null;
  return {
    reference: { words: tokens.length, speakers: refSpeakers, turns: refTurns.length },
    wer,
    cpwer,
    cpwer_unavailable: cpwerUnavailable,
    der,
    speakers: hypSpeakers === null ? null : { reference: refSpeakers, hypothesis: hypSpeakers },
    key_points: inputs.summary !== null && inputs.keyPoints !== null ? scoreKeyPoints(inputs.keyPoints, inputs.summary) : null,
  };
}

const pct = (x: number): string => `${(100 * x).toFixed(2)} %`;

/** The score as lines of text for a person. */
export function formatMeetingScore(score: MeetingScore): string {
  const lines: string[] = [];
  const r = score.reference;
  lines.push(`reference   ${r.words} words, ${r.speakers} speakers, ${r.turns} turns`);
  if (score.wer !== null) {
    const w = score.wer;
    lines.push(
      `WER         ${pct(w.wer)}  (${w.substitutions} substituted, ${w.deletions} deleted, ${w.insertions} inserted of ${w.reference_words} words)`,
    );
  }
  if (score.cpwer !== null) {
    const c = score.cpwer;
    const pairs = Object.entries(c.mapping)
      .map(([h, ref]) => `${h}→${ref ?? '-'}`)
      .join(' ');
    lines.push(`cpWER       ${pct(c.cpwer)}  (${c.substitutions} substituted, ${c.deletions} deleted, ${c.insertions} inserted; ${pairs})`);
  } else if (score.cpwer_unavailable !== null) lines.push(`cpWER       not scored: ${score.cpwer_unavailable}`);
  if (score.der !== null) {
    const d = score.der;
    lines.push(
      `DER         ${pct(d.der)}  (missed ${pct(d.missed_rate)}, false alarm ${pct(d.false_alarm_rate)}, confusion ${pct(d.confusion_rate)}; ` +
        `collar ${d.collar_seconds} s, overlap ${d.ignore_overlap ? 'not scored' : 'scored'}, ${d.scored_speaker_time.toFixed(2)} s scored)`,
    );
  }
  if (score.speakers !== null) lines.push(`speakers    ${score.speakers.hypothesis} found, ${score.speakers.reference} in the truth`);
  if (score.key_points !== null) {
    const k = score.key_points;
    lines.push(`key points  ${k.appeared} of ${k.total} appear (ROUGE-1 recall ${k.rouge1_recall.toFixed(3)})`);
    for (const p of k.points) lines.push(`  ${p.appears ? '✓' : '✗'} ${p.kind}: ${p.text}`);
  }
  return `${lines.join('\n')}\n`;
}
