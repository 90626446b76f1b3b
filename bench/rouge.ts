/**
 * ROUGE F1 as the summary-quality benchmark reports it (bench/summary-quality.ts):
 * tokens are the lower-cased runs of ASCII letters and digits (no stemming, no
 * stopword removal), ROUGE-N counts clipped n-gram overlaps, ROUGE-L is the
 * longest common subsequence of the two whole token sequences. Every figure
 * is an F1 in 0..1. Decision 079 says why this small scorer rather than a package.
 */

export interface RougeScores {
  rouge1: number;
  rouge2: number;
  rougeL: number;
}

/** Lower-cased alphanumeric tokens: "Project Manager's 2nd-try" → project, manager, s, 2nd, try. */
export function rougeTokens(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

function f1(overlap: number, candidateCount: number, referenceCount: number): number {
  if (overlap === 0 || candidateCount === 0 || referenceCount === 0) return 0;
  const precision = overlap / candidateCount;
  const recall = overlap / referenceCount;
  return (2 * precision * recall) / (precision + recall);
}

function ngramCounts(tokens: readonly string[], n: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i + n <= tokens.length; i++) {
    const gram = tokens.slice(i, i + n).join(' ');
    counts.set(gram, (counts.get(gram) ?? 0) + 1);
  }
  return counts;
}

/** ROUGE-N F1: overlapping n-grams counted at most as often as the reference has them. */
export function rougeN(candidate: readonly string[], reference: readonly string[], n: number): number {
  const c = ngramCounts(candidate, n);
  const r = ngramCounts(reference, n);
  let overlap = 0;
  for (const [gram, count] of c) overlap += Math.min(count, r.get(gram) ?? 0);
  return f1(overlap, Math.max(0, candidate.length - n + 1), Math.max(0, reference.length - n + 1));
}

/** Length of the longest common subsequence (two rows of the dynamic programme). */
export function lcsLength(a: readonly string[], b: readonly string[]): number {
  let prev = new Array<number>(b.length + 1).fill(0);
  let row = new Array<number>(b.length + 1).fill(0);
  for (const x of a) {
    for (let j = 1; j <= b.length; j++) row[j] = x === b[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, row[j - 1]!);
    [prev, row] = [row, prev];
  }
  return prev[b.length]!;
}

function rougeL(candidate: readonly string[], reference: readonly string[]): number {
  return f1(lcsLength(candidate, reference), candidate.length, reference.length);
}

export function rouge(candidateText: string, referenceText: string): RougeScores {
  const c = rougeTokens(candidateText);
  const r = rougeTokens(referenceText);
  return { rouge1: rougeN(c, r, 1), rouge2: rougeN(c, r, 2), rougeL: rougeL(c, r) };
}
