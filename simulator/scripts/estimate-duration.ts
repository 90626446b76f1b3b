/**
 * How long a script will run, without synthesizing it: for `cli.ts list`, and
 * for the long-session generator, which writes lines until the estimate
 * reaches its target.
 *
 * The per-line model was fitted on espeak-ng 1.51 renders of the scripts in
 * fixtures/meetings/ (52 lines, 80–185 wpm): seconds of speech ≈
 * (0.047 per letter or digit + 0.06 per word) × 175 / rate + 0.42 per pause
 * inside the line (, ; : . ? ! followed by more text). Its error is about
 * 0.2 s per line and under 1 % over a whole script.
 */
import { DEFAULT_PAUSE_SECONDS, DEFAULT_RATE_WPM } from './meeting-script.ts';
import type { MeetingScript } from './meeting-script.ts';

const SECONDS_PER_CHARACTER = 0.047;
const SECONDS_PER_WORD = 0.06;
const SECONDS_PER_INNER_PAUSE = 0.42;
/** Matches the renderer's silence before the first and after the last line. */
const LEAD_IN_SECONDS = 0.5;
const TAIL_SECONDS = 0.5;

export function estimateLineSeconds(text: string, rate = DEFAULT_RATE_WPM): number {
  const words = text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
  const characters = (text.match(/[\p{L}\p{N}]/gu) ?? []).length;
  const innerPauses = (text.trim().match(/[,;:.?!](?=\s)/g) ?? []).length;
  return (
    (SECONDS_PER_CHARACTER * characters + SECONDS_PER_WORD * words) * (DEFAULT_RATE_WPM / rate) + SECONDS_PER_INNER_PAUSE * innerPauses
  );
}

export interface DurationEstimate {
  /** From the start of the file to its end, silences included. */
  total: number;
  /** Seconds during which at least one person speaks, counted once per line (overlaps counted twice). */
  speech: number;
}

/** Lays the lines out as the renderer does (simulator/synth/render-script.ts), with estimated line lengths. */
export function estimateScriptDuration(script: MeetingScript): DurationEstimate {
  const rates = new Map(script.speakers.map((s) => [s.key, s.rate ?? DEFAULT_RATE_WPM]));
  let speech = 0;
  let lastEnd = 0;
  let previousEnd = 0;
  script.lines.forEach((line, i) => {
    const length = estimateLineSeconds(line.text, rates.get(line.speaker));
    let start: number;
    if (i === 0) start = LEAD_IN_SECONDS + (line.pause_before ?? 0);
    else if (line.overlap !== undefined) start = previousEnd - line.overlap;
    else start = lastEnd + (line.pause_before ?? DEFAULT_PAUSE_SECONDS);
    speech += length;
    previousEnd = start + length;
    lastEnd = Math.max(lastEnd, previousEnd);
  });
  return { total: lastEnd + TAIL_SECONDS, speech };
}
