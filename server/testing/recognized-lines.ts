/**
 * A meeting script's lines as the recognizer would write them (lower case,
 * no punctuation; one second per word, a second between lines), for tests of
 * what reads transcripts: names from what is said, over a function and over
 * HTTP. The README's four-person standup is the script they use.
 */
import { readFileSync } from 'node:fs';

export interface RecognizedLine {
  speaker: string;
  start: number;
  end: number;
  text: string;
  words: { text: string; start: number; end: number }[];
}

export function asRecognized(lines: readonly { speaker: string; text: string }[]): RecognizedLine[] {
  let t = 0;
  return lines.map(({ speaker, text }) => {
    const words = text
      .toLowerCase()
      .replace(/[^a-z' ]+/g, ' ')
      .split(/\s+/)
      .filter((w) => w !== '')
      .map((w, i) => ({ text: w, start: t + i, end: t + i + 0.8 }));
    const segment = { speaker, start: t, end: t + words.length, text: words.map((w) => w.text).join(' '), words };
    t += words.length + 1;
    return segment;
  });
}

/** The README's four-person standup, the script the simulator renders. */
export const STANDUP = JSON.parse(readFileSync(new URL('../../fixtures/meetings/four-person-standup.json', import.meta.url), 'utf8')) as {
  title: string;
  lines: { speaker: string; text: string }[];
  bias: { custom_words: string[] };
};
