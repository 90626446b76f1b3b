/**
 * Scores a generated summary against a script's key points (the "key_points"
 * of a meeting script: decisions, blockers, owners, dates, as a person taking
 * notes would write them). Two figures (docs/decisions/029):
 *
 *   rouge1_recall  ROUGE-1 recall: the key points' words (all of them,
 *                  normalized by normalize-words.ts) that the summary also
 *                  has, each counted at most as often as the summary has it,
 *                  over the key points' word count.
 *   appears        per key point: true when at least APPEARS_FRACTION of its
 *                  content words (stop words left out, light stemming on both
 *                  sides) occur in the summary. A key point of one or two
 *                  content words needs all of them.
 *
 * Stemming only strips common English endings (-s, -es, -ed, -ing, -ly), so
 * "invoices" matches "invoice" and "approved" matches "approve"; it never
 * maps one word to a different word.
 */
import { normalizeWords } from './normalize-words.ts';

/** The share of a key point's content words that must be in the summary for it to count as there. */
const APPEARS_FRACTION = 0.6;

/** Function words that carry no content of a key point. */
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or but if then so of to in on at by for with from as is are was were be been being it its this that these those ' +
    'we i you he she they them our your their my his her us me do does did not no yes can will would should could shall may might ' +
    'has have had about into over than only also just all any some each every there here what which who whom when where why how ' +
    'up out off again more most very too own same other such both few per next'
  ).split(' '),
);

export interface KeyPoint {
  kind: string;
  text: string;
}

interface KeyPointHit {
  kind: string;
  text: string;
  appears: boolean;
  /** Content words of the key point found in the summary, over its content words. */
  matched: number;
  content_words: number;
}

export interface KeyPointScore {
  rouge1_recall: number;
  /** Key points that appear, over all key points. */
  appear_rate: number;
  appeared: number;
  total: number;
  points: KeyPointHit[];
}

/** A word with its common English ending removed: "invoices" → "invoic", "invoice" → "invoic". */
export function stem(word: string): string {
  if (word.length <= 3) return word;
  for (const suffix of ['ing', 'ed', 'es', 'ly', 's', 'e']) {
    if (word.endsWith(suffix) && word.length - suffix.length >= 3) return word.slice(0, -suffix.length);
  }
  return word;
}

function counts(words: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const w of words) m.set(w, (m.get(w) ?? 0) + 1);
  return m;
}

/** ROUGE-1 recall of `reference` words found in `candidate` (clipped counts); 0 when the reference is empty. */
export function rouge1Recall(reference: readonly string[], candidate: readonly string[]): number {
  if (reference.length === 0) return 0;
  const have = counts(candidate);
  let overlap = 0;
  for (const [word, n] of counts(reference)) overlap += Math.min(n, have.get(word) ?? 0);
  return overlap / reference.length;
}

export function scoreKeyPoints(keyPoints: readonly KeyPoint[], summary: string): KeyPointScore {
  const summaryWords = normalizeWords(summary);
  const summaryStems = new Set(summaryWords.map(stem));
  const points = keyPoints.map((kp): KeyPointHit => {
    const content = normalizeWords(kp.text).filter((w) => !STOP_WORDS.has(w));
    const matched = content.filter((w) => summaryStems.has(stem(w))).length;
    const needed = content.length <= 2 ? content.length : Math.ceil(APPEARS_FRACTION * content.length);
    return { kind: kp.kind, text: kp.text, appears: content.length > 0 && matched >= needed, matched, content_words: content.length };
  });
  const appeared = points.filter((p) => p.appears).length;
  return {
    rouge1_recall: rouge1Recall(
      keyPoints.flatMap((kp) => normalizeWords(kp.text)),
      summaryWords,
    ),
    appear_rate: keyPoints.length === 0 ? 0 : appeared / keyPoints.length,
    appeared,
    total: keyPoints.length,
    points,
  };
}
