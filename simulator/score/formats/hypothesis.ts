/**
 * What `simulator score` reads from another system's output, whatever the
 * format: its words (with times and speakers where the format has them), its
 * speaker turns (diarization) and its summary. The parsers in this folder
 * turn one format each into a ParsedHypothesis, or throw a
 * HypothesisSyntaxError naming the line and what was expected there; nothing
 * is scored from half a file.
 */
import type { DiarizationTurn } from '../der.ts';

export interface HypothesisWord {
  text: string;
  /** Seconds; null when the format has no times (plain text). */
  start: number | null;
  end: number | null;
  /** The system's speaker label; null when the format has none. */
  speaker: string | null;
}

export interface ParsedHypothesis {
  words: HypothesisWord[];
  /** Who spoke when, when the format says (RTTM, STM, the API's segments); null otherwise. */
  turns: DiarizationTurn[] | null;
  /** A summary the file carries (the API's export); null otherwise. */
  summary: string | null;
}

/**
 * A malformed hypothesis. `where` is "line 12" for line formats, or a JSON
 * location ("line 3 column 7", "segments[4].start") for JSON ones.
 */
export class HypothesisSyntaxError extends Error {
  readonly where: string;
  readonly expected: string;
  constructor(where: string, expected: string) {
    super(`${where}: expected ${expected}`);
    this.name = 'HypothesisSyntaxError';
    this.where = where;
    this.expected = expected;
  }
}

/** A number field, or a HypothesisSyntaxError at `line`. */
export function numberAt(value: string | undefined, line: number, what: string): number {
  const n = value === undefined || value.trim() === '' ? NaN : Number(value);
  if (!Number.isFinite(n) || n < 0)
    throw new HypothesisSyntaxError(`line ${line}`, `${what} as a number of seconds ≥ 0, got "${value ?? ''}"`);
  return n;
}

/** The lines of a text with their 1-based numbers; a byte-order mark and CR line ends dropped. */
export function numberedLines(text: string): { line: number; text: string }[] {
  return text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .map((t, i) => ({ line: i + 1, text: t }));
}

/** Refuses what is not text at all (a WAV given by mistake): a NUL byte never occurs in a transcript. */
export function assertText(text: string): void {
  const nul = text.indexOf('\u0000');
  if (nul >= 0) {
    const line = text.slice(0, nul).split('\n').length;
    throw new HypothesisSyntaxError(`line ${line}`, 'text (found a NUL byte: is this an audio or binary file?)');
  }
}

/**
 * A segment's words with times spread evenly over it: formats that time
 * segments but not words (STM, SRT, WebVTT) still order words in time and
 * let cpWER and speaker assignment use them.
 */
export function spreadWords(text: string, start: number, end: number, speaker: string | null): HypothesisWord[] {
  const tokens = text.split(/\s+/).filter((t) => t.length > 0);
  const share = (end - start) / Math.max(1, tokens.length);
  return tokens.map((t, i) => ({ text: t, start: start + i * share, end: start + (i + 1) * share, speaker }));
}
