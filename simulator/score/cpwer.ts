/**
 * Concatenated minimum-permutation word error rate (cpWER), as CHiME-6
 * defined it and meeteval computes it: each speaker's words are concatenated
 * in time order, on both sides; reference and hypothesis speakers are paired
 * one-to-one so that the summed errors are least; a reference speaker left
 * without a partner has all its words deleted, a hypothesis speaker left
 * over has all its words inserted. cpWER = errors / reference words.
 *
 * The pairing is an assignment problem: pairing r with h saves
 * |ref_r| + |hyp_h| − errors(r, h) over leaving both unpaired (never
 * negative), so the Hungarian algorithm on those savings finds the least
 * total. Pure: no I/O, no clock.
 */
import { bestAssignment } from '../../common/best-assignment.ts';
import { normalizeWordList } from './normalize-words.ts';
import { wordErrorRate } from './word-error-rate.ts';
import type { Alignment } from './word-error-rate.ts';

export interface SpeakerWords {
  speaker: string;
  /** The speaker's words in time order (normalized here). */
  words: readonly string[];
}

export interface ConcatenatedPermutationWer {
  cpwer: number;
  errors: number;
  substitutions: number;
  deletions: number;
  insertions: number;
  reference_words: number;
  /** Hypothesis speaker → the reference speaker it was paired with (null: none, its words all inserted). */
  mapping: Record<string, string | null>;
}

/** Levenshtein distance of two token sequences, two rows of memory. */
export function editDistance(a: readonly string[], b: readonly string[]): number {
  let previous = new Uint32Array(b.length + 1);
  let current = new Uint32Array(b.length + 1);
  for (let j = 0; j <= b.length; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1), previous[j]! + 1, current[j - 1]! + 1);
    }
    [previous, current] = [current, previous];
  }
  return previous[b.length]!;
}

/** Groups time-ordered words by speaker, keeping each speaker's order. */
export function wordsBySpeaker(words: readonly { text: string; speaker: string }[]): SpeakerWords[] {
  const by = new Map<string, string[]>();
  for (const w of words) {
    let list = by.get(w.speaker);
    if (list === undefined) by.set(w.speaker, (list = []));
    list.push(w.text);
  }
  return [...by.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([speaker, list]) => ({ speaker, words: list }));
}

export function concatenatedPermutationWer(
  reference: readonly SpeakerWords[],
  hypothesis: readonly SpeakerWords[],
  alignment: Alignment = 'levenshtein',
): ConcatenatedPermutationWer {
  const ref = reference.map((s) => ({ speaker: s.speaker, words: normalizeWordList(s.words) }));
  const hyp = hypothesis.map((s) => ({ speaker: s.speaker, words: normalizeWordList(s.words) }));
  // Errors of a pairing under the alignment's own counting (sclite's can exceed the least number of edits).
  const errorsOf = (a: readonly string[], b: readonly string[]): number => {
    if (alignment === 'levenshtein') return editDistance(a, b);
    const c = wordErrorRate(a, b, alignment);
    return c.substitutions + c.deletions + c.insertions;
  };
  const savings = ref.map((r) => hyp.map((h) => r.words.length + h.words.length - errorsOf(r.words, h.words)));
  const assignment = bestAssignment(savings);
  let substitutions = 0;
  let deletions = 0;
  let insertions = 0;
  const mapping: Record<string, string | null> = {};
  for (const h of hyp) mapping[h.speaker] = null;
  const pairedHyp = new Set<number>();
  ref.forEach((r, i) => {
    const j = assignment[i]!;
    if (j < 0) {
      deletions += r.words.length;
      return;
    }
    pairedHyp.add(j);
    mapping[hyp[j]!.speaker] = r.speaker;
    const counts = wordErrorRate(r.words, hyp[j]!.words, alignment);
    substitutions += counts.substitutions;
    deletions += counts.deletions;
    insertions += counts.insertions;
  });
  hyp.forEach((h, j) => {
    if (!pairedHyp.has(j)) insertions += h.words.length;
  });
  const referenceWords = ref.reduce((n, r) => n + r.words.length, 0);
  const errors = substitutions + deletions + insertions;
  return {
    cpwer: errors / Math.max(1, referenceWords),
    errors,
    substitutions,
    deletions,
    insertions,
    reference_words: referenceWords,
    mapping,
  };
}
