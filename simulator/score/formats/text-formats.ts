/**
 * Hypotheses without segments: plain text (every whitespace-separated token
 * a word, in order) and the output of `pocketsphinx_continuous -time yes`
 * (each utterance's text on one line, then one "word start end confidence"
 * line per word; fillers such as <s>, </s>, <sil>, [NOISE] and ++UM++ are
 * not words, and "(2)" marks a pronunciation variant, not a different word).
 */
import { HypothesisSyntaxError, assertText, numberAt, numberedLines } from './hypothesis.ts';
import type { HypothesisWord, ParsedHypothesis } from './hypothesis.ts';

export function parsePlainText(text: string): ParsedHypothesis {
  assertText(text);
  const words = text
    .split(/\s+/)
    .filter((t) => t.length > 0)
    .map((t): HypothesisWord => ({ text: t, start: null, end: null, speaker: null }));
  return { words, turns: null, summary: null };
}

/** A pocketsphinx filler: silence, sentence marks, noises. */
const FILLER = /^(<.*>|\[.*\]|\+\+.*\+\+)$/;

const isNumber = (s: string | undefined): boolean => s !== undefined && s !== '' && Number.isFinite(Number(s));

/**
 * pocketsphinx_continuous -time yes: word lines carry the times; the
 * utterance lines (words only) repeat them and are skipped.
 */
export function parsePocketsphinxTimes(text: string): ParsedHypothesis {
  assertText(text);
  const words: HypothesisWord[] = [];
  for (const { line, text: raw } of numberedLines(text)) {
    const f = raw
      .trim()
      .split(/\s+/)
      .filter((x) => x.length > 0);
    if (f.length === 0) continue;
    const numeric = f.filter(isNumber).length;
    if (numeric === 0) continue; // an utterance's hypothesis line
    if (f.length !== 4 || !isNumber(f[1]) || !isNumber(f[2]) || !isNumber(f[3])) {
      throw new HypothesisSyntaxError(
        `line ${line}`,
        `"word start end confidence" (pocketsphinx_continuous -time yes) or an utterance line of words, got "${raw.trim().slice(0, 60)}"`,
      );
    }
    const start = numberAt(f[1], line, 'the start time (field 2)');
    const end = numberAt(f[2], line, 'the end time (field 3)');
    if (end < start) throw new HypothesisSyntaxError(`line ${line}`, `an end time (${end}) at or after the start (${start})`);
    const word = f[0]!.replace(/\(\d+\)$/, '');
    if (FILLER.test(word)) continue;
    words.push({ text: word, start, end, speaker: null });
  }
  return { words, turns: null, summary: null };
}
