/**
 * A meeting's ground truth in the formats other scoring tools read
 * (docs/decisions/111-truth-in-standard-formats.md):
 *
 *   <base>.rttm         who spoke when: NIST RTTM SPEAKER lines (md-eval, pyannote.metrics, dscore)
 *   <base>.stm          NIST sclite's segment time marks: one line per speaker turn with its words
 *   <base>.ctm          NIST sclite's time-marked words: one line per word
 *   <base>.seglst.json  meeteval's SegLST: session_id, speaker, start_time, end_time, words
 *
 * A speaker turn is a run of one speaker's words in which no two consecutive
 * words are TURN_GAP_SECONDS or more apart; other speakers' words in between
 * do not end it, so overlapping speech gives overlapping turns of two
 * speakers. Words are written as the scoring tokens of normalize-words.ts
 * (lower case, no punctuation; "follow-up" is two tokens sharing the word's
 * time), so sclite scores them as `simulator score` does.
 *
 * Pure: the writers take the truth and return text; writeTruthFormats writes the files.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { normalizeWords } from '../score/normalize-words.ts';

/**
 * Words of one speaker closer than this join one turn. Twice the usual
 * 0.25 s DER collar: a shorter pause lies wholly inside the no-score collars
 * of its two edges, so merging it changes no collared DER.
 */
const TURN_GAP_SECONDS = 0.5;

/** What the formats need of a truth file (simulator/synth/render-script.ts, MeetingTruth). */
export interface TruthWords {
  words: readonly { text: string; start: number; end: number; speaker: string }[];
  /** A speaker cast as a recurring person (simulator/people/) is written under the person's id, the same in every meeting (decision 151). */
  speakers?: readonly { key: string; person?: string }[];
}

/** One scoring token with its time: a truth word, or a share of one that normalizes to several tokens. */
export interface TimedToken {
  word: string;
  start: number;
  end: number;
  speaker: string;
}

export interface SpeakerTurn {
  speaker: string;
  start: number;
  end: number;
  words: string[];
}

/** Seconds to the millisecond, as the truth holds them. */
function ms(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

/** The truth's words as scoring tokens, ordered by start time (stable, so simultaneous words keep the truth's order). */
export function truthTokens(truth: TruthWords): TimedToken[] {
  const tokens: TimedToken[] = [];
  const personOf = new Map((truth.speakers ?? []).flatMap((s) => (s.person !== undefined ? [[s.key, s.person] as const] : [])));
  for (const w of truth.words) {
    const speaker = personOf.get(w.speaker) ?? w.speaker;
    const parts = normalizeWords(w.text);
    const share = (w.end - w.start) / Math.max(1, parts.length);
    parts.forEach((word, i) => {
      tokens.push({ word, start: ms(w.start + i * share), end: ms(w.start + (i + 1) * share), speaker });
    });
  }
  return tokens.sort((a, b) => a.start - b.start);
}

/** Speaker turns from timed tokens: see the header for the rule. Ordered by start, then speaker. */
export function speakerTurns(tokens: readonly TimedToken[], gapSeconds = TURN_GAP_SECONDS): SpeakerTurn[] {
  const open = new Map<string, SpeakerTurn>();
  const turns: SpeakerTurn[] = [];
  for (const t of tokens) {
    const current = open.get(t.speaker);
    if (current !== undefined && t.start - current.end < gapSeconds) {
      current.end = Math.max(current.end, t.end);
      current.words.push(t.word);
      continue;
    }
    const turn: SpeakerTurn = { speaker: t.speaker, start: t.start, end: t.end, words: [t.word] };
    open.set(t.speaker, turn);
    turns.push(turn);
  }
  return turns.sort((a, b) => a.start - b.start || (a.speaker < b.speaker ? -1 : a.speaker > b.speaker ? 1 : 0));
}

/**
 * A session (file) id the NIST formats accept: one field, no spaces. From
 * the truth file's name: standup.truth.json → "standup".
 */
export function sessionIdFor(truthPath: string): string {
  const base = path.basename(truthPath).replace(/(\.truth)?\.json$/i, '');
  return base.replace(/[^A-Za-z0-9._-]+/g, '_') || 'meeting';
}

/** A speaker label as one field of a NIST line. */
function field(label: string): string {
  return label.replace(/\s+/g, '_') || 'unknown';
}

const seconds = (x: number): string => x.toFixed(3);

/** RTTM: "SPEAKER <session> 1 <start> <duration> <NA> <NA> <speaker> <NA> <NA>" per turn. */
export function truthRttm(turns: readonly SpeakerTurn[], session: string): string {
  return turns
    .filter((t) => t.end > t.start)
    .map((t) => `SPEAKER ${session} 1 ${seconds(t.start)} ${seconds(t.end - t.start)} <NA> <NA> ${field(t.speaker)} <NA> <NA>\n`)
    .join('');
}

/** STM: "<session> 1 <speaker> <start> <end> <words>" per turn, ordered by start. */
export function truthStm(turns: readonly SpeakerTurn[], session: string): string {
  const header = ';; Segment time marks of the ground truth: <session> <channel> <speaker> <start> <end> <words>\n';
  return (
    header + turns.map((t) => `${session} 1 ${field(t.speaker)} ${seconds(t.start)} ${seconds(t.end)} ${t.words.join(' ')}\n`).join('')
  );
}

/** CTM: "<session> 1 <start> <duration> <word>" per token, ordered by start. */
export function truthCtm(tokens: readonly TimedToken[], session: string): string {
  return tokens.map((t) => `${session} 1 ${seconds(t.start)} ${seconds(Math.max(0, t.end - t.start))} ${t.word}\n`).join('');
}

export interface SegLstSegment {
  session_id: string;
  speaker: string;
  start_time: number;
  end_time: number;
  words: string;
}

/** meeteval's SegLST: one segment per turn, words space-separated. */
export function truthSegLst(turns: readonly SpeakerTurn[], session: string): SegLstSegment[] {
  return turns.map((t) => ({ session_id: session, speaker: t.speaker, start_time: t.start, end_time: t.end, words: t.words.join(' ') }));
}

export interface TruthFormatPaths {
  rttm: string;
  stm: string;
  ctm: string;
  seglst: string;
}

/** Where the formats go beside a truth file: standup.truth.json → standup.rttm, standup.stm, ... */
export function truthFormatPaths(truthPath: string): TruthFormatPaths {
  const base = truthPath.replace(/(\.truth)?\.json$/i, '');
  return { rttm: `${base}.rttm`, stm: `${base}.stm`, ctm: `${base}.ctm`, seglst: `${base}.seglst.json` };
}

/** Writes the four formats beside `truthPath`; returns their paths. */
export async function writeTruthFormats(truth: TruthWords, truthPath: string): Promise<TruthFormatPaths> {
  const session = sessionIdFor(truthPath);
  const tokens = truthTokens(truth);
  const turns = speakerTurns(tokens);
  const paths = truthFormatPaths(truthPath);
  await writeFile(paths.rttm, truthRttm(turns, session));
  await writeFile(paths.stm, truthStm(turns, session));
  await writeFile(paths.ctm, truthCtm(tokens, session));
  await writeFile(paths.seglst, `${JSON.stringify(truthSegLst(turns, session), null, 2)}\n`);
  return paths;
}
