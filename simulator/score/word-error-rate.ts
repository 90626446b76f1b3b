/**
 * Word error rate: the Levenshtein distance between reference and hypothesis
 * word sequences (after normalize-words.ts), divided by the number of
 * reference words. Pure: no I/O, no clock.
 */
import { normalizeWords } from './normalize-words.ts';

export interface WordErrorRate {
  /** (substitutions + deletions + insertions) / reference_words; see wordErrorRate for an empty reference. */
  wer: number;
  substitutions: number;
  deletions: number;
  insertions: number;
  reference_words: number;
}

export type AlignmentStep =
  { op: 'match' | 'substitution'; ref: number; hyp: number } | { op: 'deletion'; ref: number } | { op: 'insertion'; hyp: number };

// Backpointer codes for the DP table.
const DIAGONAL = 0;
const UP = 1; // deletion: a reference word with no hypothesis word
const LEFT = 2; // insertion: a hypothesis word with no reference word

/**
 * A minimum-edit alignment of two token sequences. Among equally short
 * alignments it prefers, at every step from the end, a match or substitution,
 * then a deletion, then an insertion, so the result is deterministic.
 * Memory: one byte per (reference, hypothesis) pair.
 */
export function alignWords(ref: readonly string[], hyp: readonly string[]): AlignmentStep[] {
  const n = ref.length;
  const m = hyp.length;
  const back = new Uint8Array((n + 1) * (m + 1));
  let previous = new Uint32Array(m + 1);
  let current = new Uint32Array(m + 1);
  for (let j = 0; j <= m; j++) {
    previous[j] = j;
    back[j] = LEFT;
  }
  for (let i = 1; i <= n; i++) {
    current[0] = i;
    back[i * (m + 1)] = UP;
    for (let j = 1; j <= m; j++) {
      const diagonal = previous[j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1);
      const up = previous[j]! + 1;
      const left = current[j - 1]! + 1;
      let best = diagonal;
      let move = DIAGONAL;
      if (up < best) {
        best = up;
        move = UP;
      }
      if (left < best) {
        best = left;
        move = LEFT;
      }
      current[j] = best;
      back[i * (m + 1) + j] = move;
    }
    [previous, current] = [current, previous];
  }
  const steps: AlignmentStep[] = [];
  let i = n;
  let j = m;
  while (i > 0 || j > 0) {
    const move = back[i * (m + 1) + j];
    if (i > 0 && j > 0 && move === DIAGONAL) {
      steps.push({ op: ref[i - 1] === hyp[j - 1] ? 'match' : 'substitution', ref: i - 1, hyp: j - 1 });
      i--;
      j--;
    } else if (i > 0 && (move === UP || j === 0)) {
      steps.push({ op: 'deletion', ref: i - 1 });
      i--;
    } else {
      steps.push({ op: 'insertion', hyp: j - 1 });
      j--;
    }
  }
  return steps.reverse();
}

/** Counts the edits of an alignment. */
function countEdits(steps: readonly AlignmentStep[], referenceWords: number): WordErrorRate {
  let substitutions = 0;
  let deletions = 0;
  let insertions = 0;
  for (const step of steps) {
    if (step.op === 'substitution') substitutions++;
    else if (step.op === 'deletion') deletions++;
    else if (step.op === 'insertion') insertions++;
  }
  const errors = substitutions + deletions + insertions;
  // With no reference words every hypothesis word is an error; dividing by 1
  // keeps the rate finite (and JSON-safe): 0 for silence recognized as silence.
  return { wer: errors / Math.max(1, referenceWords), substitutions, deletions, insertions, reference_words: referenceWords };
}

/**
 * WER of a hypothesis against a reference. Strings are split and normalized;
 * arrays are taken as words and normalized each (a word may yield several tokens).
 */
export function wordErrorRate(reference: string | readonly string[], hypothesis: string | readonly string[]): WordErrorRate {
  const toTokens = (x: string | readonly string[]): string[] =>
    typeof x === 'string' ? normalizeWords(x) : x.flatMap((w) => normalizeWords(w));
  const ref = toTokens(reference);
  const hyp = toTokens(hypothesis);
  return countEdits(alignWords(ref, hyp), ref.length);
}
