/**
 * Word times inside one synthesized line.
 *
 * espeak-ng's command line reports no word boundaries, so they are derived
 * from two renders of the same line (docs/decisions/009-synthetic-meetings.md):
 *
 * 1. Word lengths: the line rendered again with a long pause between words
 *    (espeak-ng -g). Words become islands of sound, and an island's length is
 *    the word's length as the synthesizer says it in this sentence.
 *    espeak-ng does not separate every word: it binds unstressed words to a
 *    neighbour ("of the", "wants a"), and says a number or an abbreviation as
 *    several words. So islands are matched to words by dynamic programming,
 *    guided by character counts: consecutive words share an island, which is
 *    split between them by their characters. With more islands than words,
 *    the islands with the shortest silence between them are joined first.
 *    If nothing matches, character counts alone stand in.
 * 2. Clause anchors: in the real render espeak-ng pauses at , ; : . ? ! and
 *    the pauses are found by silence. When their number matches the
 *    punctuation, each clause's words are laid out inside its own stretch of
 *    sound; otherwise all words share the line's speech span.
 *
 * Inside a stretch, words follow each other without gaps, each taking a share
 * of the stretch proportional to its length from step 1.
 *
 * Measured against a forced aligner (evaluate-word-times.ts, 3615 boundaries
 * of the long planning session), a boundary between two words is off by
 * 50 ms on average, 40 ms at the median and under 105 ms for nine in ten;
 * character counts alone would give 85, 75 and 165 ms.
 */
import { truthWord } from '../scripts/meeting-script.ts';
import { speechSegments, speechSpan } from './speech-activity.ts';
import type { SampleSpan } from './speech-activity.ts';

/** The -g value used for the measuring render: 300 ms between words at 175 wpm. */
export const MEASURE_WORD_GAP = 30;

export interface LineToken {
  /** The word as the ground truth spells it. */
  text: string;
  /** True when the token is followed by clause punctuation (, ; : . ? !) and is not the last word. */
  endsClause: boolean;
}

export interface WordSpan {
  text: string;
  /** Samples from the start of the line's clip. */
  start: number;
  end: number;
}

/**
 * Where a line's word lengths came from, best first: every word its own island
 * ("measured"), islands shared by neighbouring words ("grouped"), or
 * character counts alone ("characters").
 */
export type WordLengthSource = 'measured' | 'grouped' | 'characters';

const CLAUSE_END = /[,;:.?!]["')\]]*$/;

/** Splits a line into words, remembering which words end a clause. */
export function tokenizeLine(text: string): LineToken[] {
  const tokens: LineToken[] = [];
  for (const raw of text.split(/\s+/)) {
    const word = truthWord(raw);
    if (word.length === 0) continue; // a lone dash or quote is not a word
    tokens.push({ text: word, endsClause: CLAUSE_END.test(raw) });
  }
  const last = tokens.at(-1);
  if (last !== undefined) last.endsClause = false;
  return tokens;
}

/** A word's written length as a stand-in for its spoken length; a digit is said as about three letters' worth. */
export function characterWeight(word: string): number {
  const digits = (word.match(/\p{N}/gu) ?? []).length;
  const letters = (word.match(/\p{L}/gu) ?? []).length;
  return Math.max(1, letters + 3 * digits);
}

/** Seconds of silence that separate words in the measuring render, scaled by rate. */
function measureGapSeconds(rate: number): number {
  // -g is "units of 10 ms at the default speed": espeak-ng stretches it at slower rates.
  return (MEASURE_WORD_GAP * 0.01 * Math.min(1, 175 / rate)) / 2;
}

/**
 * Minimum silence that counts as a clause pause in the real render. espeak-ng's
 * comma pause is about 150 ms at 175 wpm; stop closures inside words stay
 * under about 80 ms.
 */
function clauseGapSeconds(rate: number): number {
  return 0.1 * Math.min(1.5, Math.max(0.6, 175 / rate));
}

function layOut(tokens: readonly LineToken[], weights: readonly number[], span: SampleSpan, out: WordSpan[]): void {
  const total = weights.reduce((a, b) => a + b, 0);
  let acc = 0;
  tokens.forEach((token, i) => {
    const from = span.start + Math.round(((span.end - span.start) * acc) / total);
    acc += weights[i]!;
    const to = span.start + Math.round(((span.end - span.start) * acc) / total);
    out.push({ text: token.text, start: from, end: Math.max(to, from + 1) });
  });
}

/**
 * Joins the islands separated by the shortest silences until there are
 * `count` of them: a word that espeak-ng split in two (a long stop closure)
 * becomes one again. Returns island lengths in samples.
 */
function joinClosestIslands(islands: readonly SampleSpan[], count: number): number[] {
  const spans = islands.map((s) => ({ ...s }));
  while (spans.length > count) {
    let best = 1;
    for (let i = 2; i < spans.length; i++) {
      if (spans[i]!.start - spans[i - 1]!.end < spans[best]!.start - spans[best - 1]!.end) best = i;
    }
    spans[best - 1]!.end = spans[best]!.end;
    spans.splice(best, 1);
  }
  // Lengths of sound only: the silence inside a joined island is not counted.
  return spans.map((s) => s.end - s.start);
}

/**
 * Splits `islands` (lengths) among words with the given character weights:
 * each island covers one or more consecutive words, chosen so that every
 * island's length best matches the characters it covers (least squares of
 * the log ratio, after scaling characters to samples). Each island is then
 * shared by its words in proportion to their characters.
 */
export function groupIslands(islands: readonly number[], guide: readonly number[]): number[] {
  const n = guide.length;
  const m = islands.length;
  if (m === 0 || m > n) throw new Error(`cannot share ${m} islands among ${n} words`);
  const prefix = [0];
  for (const g of guide) prefix.push(prefix.at(-1)! + g);
  const scale = islands.reduce((a, b) => a + b, 0) / prefix[n]!;
  // cost[j][i]: best cost of covering the first i words with the first j islands.
  const cost = Array.from({ length: m + 1 }, () => new Array<number>(n + 1).fill(Infinity));
  const back = Array.from({ length: m + 1 }, () => new Array<number>(n + 1).fill(-1));
  cost[0]![0] = 0;
  for (let j = 1; j <= m; j++) {
    for (let i = j; i <= n - (m - j); i++) {
      for (let p = j - 1; p < i; p++) {
        const before = cost[j - 1]![p]!;
        if (before === Infinity) continue;
        const miss = Math.log(islands[j - 1]! / (scale * (prefix[i]! - prefix[p]!)));
        if (before + miss * miss < cost[j]![i]!) {
          cost[j]![i] = before + miss * miss;
          back[j]![i] = p;
        }
      }
    }
  }
  const lengths = new Array<number>(n).fill(0);
  let i = n;
  for (let j = m; j >= 1; j--) {
    const p = back[j]![i]!;
    const chars = prefix[i]! - prefix[p]!;
    for (let t = p; t < i; t++) lengths[t] = (islands[j - 1]! * guide[t]!) / chars;
    i = p;
  }
  return lengths;
}

/**
 * Step 1: each word's length in samples, from the measuring render (-g) when
 * its islands of sound can be matched to the words, else from characters.
 */
export function wordLengths(
  tokens: readonly LineToken[],
  measured: Int16Array,
  sampleRate: number,
  rate: number,
): { lengths: number[]; source: WordLengthSource } {
  const guide = tokens.map((t) => characterWeight(t.text));
  const islands = speechSegments(measured, sampleRate, measureGapSeconds(rate));
  if (tokens.length === 0 || islands.length === 0) return { lengths: guide, source: 'characters' };
  if (islands.length >= tokens.length) {
    return { lengths: joinClosestIslands(islands, tokens.length), source: islands.length === tokens.length ? 'measured' : 'grouped' };
  }
  return {
    lengths: groupIslands(
      islands.map((s) => s.end - s.start),
      guide,
    ),
    source: 'grouped',
  };
}

/**
 * Step 2: lays the words out inside the line's sound, each taking a share of
 * its clause's stretch proportional to its weight.
 */
export function layOutWords(
  tokens: readonly LineToken[],
  weights: readonly number[],
  line: Int16Array,
  sampleRate: number,
  rate: number,
): { words: WordSpan[]; clauseAnchored: boolean } {
  if (weights.length !== tokens.length) throw new Error(`expected ${tokens.length} word weights, got ${weights.length}`);
  const span = speechSpan(line, sampleRate);
  if (span === undefined) throw new Error('the synthesized line is silent');
  const clauses: number[][] = [[]];
  tokens.forEach((token, i) => {
    clauses.at(-1)!.push(i); // clauses always holds at least one array
    if (token.endsClause) clauses.push([]);
  });
  const stretches = clauses.length > 1 ? speechSegments(line, sampleRate, clauseGapSeconds(rate)) : [span];
  // A one-clause line is anchored by its own speech span.
  const clauseAnchored = stretches.length === clauses.length;
  const words: WordSpan[] = [];
  if (clauseAnchored) {
    clauses.forEach((indexes, c) => {
      layOut(
        indexes.map((i) => tokens[i]!),
        indexes.map((i) => Math.max(1, weights[i]!)),
        stretches[c]!,
        words,
      );
    });
  } else {
    layOut(
      tokens,
      weights.map((w) => Math.max(1, w)),
      span,
      words,
    );
  }
  return { words, clauseAnchored };
}
