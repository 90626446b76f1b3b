/**
 * The word tokens that scoring compares: lower case, punctuation gone,
 * numbers left as written ("12" stays "12" and does not match "twelve"; a
 * recognizer that writes digits where the script spelled the number pays for
 * it, which is why the scripts spell numbers out).
 */

/**
 * "Don't" → "dont", "follow-up" → "follow up", "Q3," → "q3".
 * Apostrophes are dropped rather than split on, so contractions stay one word;
 * hyphens and slashes split, because recognizers write compounds either way.
 */
export function normalizeWords(text: string): string[] {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/['\u2019\u2018`]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .split(' ')
    .filter((w) => w.length > 0);
}

/** Normalizes a list of words (each may normalize to zero, one or several tokens). */
export function normalizeWordList(words: readonly string[]): string[] {
  return words.flatMap((w) => normalizeWords(w));
}
