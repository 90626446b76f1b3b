/**
 * Subtitles as hypotheses: SubRip (SRT) and WebVTT. Cues give times to
 * their text (words are spread over the cue); inline markup (<i>, <b>,
 * inline timestamps) is dropped. WebVTT's voice spans (<v Alice>...) name
 * the speaker; SRT has no speakers.
 */
import { HypothesisSyntaxError, numberedLines, spreadWords } from './hypothesis.ts';
import type { HypothesisWord, ParsedHypothesis } from './hypothesis.ts';

/** "01:02:03,456" (SRT) or "01:02:03.456" / "02:03.456" (WebVTT) → seconds, or null. */
function cueTime(text: string, separator: ',' | '.', hoursOptional: boolean): number | null {
  const m = new RegExp(`^(?:(\\d+):)${hoursOptional ? '?' : ''}([0-5]\\d):([0-5]\\d)\\${separator}(\\d{3})$`).exec(text);
  if (m === null) return null;
  return Number(m[1] ?? 0) * 3600 + Number(m[2]) * 60 + Number(m[3]) + Number(m[4]) / 1000;
}

interface Block {
  lines: { line: number; text: string }[];
}

/** Blank-line separated blocks. */
function blocks(text: string): Block[] {
  const out: Block[] = [];
  let current: Block = { lines: [] };
  for (const l of numberedLines(text)) {
    if (l.text.trim() === '') {
      if (current.lines.length > 0) out.push(current);
      current = { lines: [] };
    } else current.lines.push(l);
  }
  if (current.lines.length > 0) out.push(current);
  return out;
}

/** A timing line "<start> --> <end>[ settings]" → its times, or a HypothesisSyntaxError. */
function timing(l: { line: number; text: string }, separator: ',' | '.', hoursOptional: boolean, example: string): [number, number] {
  const parts = l.text.trim().split(/\s+/);
  const start = parts[1] === '-->' ? cueTime(parts[0]!, separator, hoursOptional) : null;
  const end = parts[1] === '-->' && parts[2] !== undefined ? cueTime(parts[2], separator, hoursOptional) : null;
  if (start === null || end === null)
    throw new HypothesisSyntaxError(`line ${l.line}`, `a cue timing "${example}", got "${l.text.trim()}"`);
  if (end < start) throw new HypothesisSyntaxError(`line ${l.line}`, 'a cue that ends at or after it starts');
  return [start, end];
}

const stripTags = (text: string): string => text.replace(/<[^>]*>/g, ' ');

/** SRT: "<index>", "<start> --> <end>", text lines; blocks separated by blank lines. */
export function parseSrt(text: string): ParsedHypothesis {
  const words: HypothesisWord[] = [];
  for (const b of blocks(text)) {
    const [index, time, ...lines] = b.lines;
    if (!/^\d+$/.test(index!.text.trim()))
      throw new HypothesisSyntaxError(`line ${index!.line}`, `a cue number, got "${index!.text.trim()}"`);
    if (time === undefined)
      throw new HypothesisSyntaxError(`line ${index!.line + 1}`, 'a cue timing "00:00:01,000 --> 00:00:02,500" after the cue number');
    const [start, end] = timing(time, ',', false, '00:00:01,000 --> 00:00:02,500');
    words.push(...spreadWords(stripTags(lines.map((l) => l.text).join(' ')), start, end, null));
  }
  return { words: words.sort((a, b) => a.start! - b.start!), turns: null, summary: null };
}

/** The speaker of a WebVTT cue's first voice span, "<v Alice>" or "<v.loud Alice>". */
function voiceOf(text: string): string | null {
  const m = /<v(?:\.[^\s>]*)?\s+([^>]+)>/.exec(text);
  return m === null ? null : m[1]!.trim();
}

/** WebVTT: "WEBVTT" first, then cues ("[id]", "<start> --> <end> [settings]", text); NOTE, STYLE and REGION blocks skipped. */
export function parseVtt(text: string): ParsedHypothesis {
  const all = blocks(text);
  const header = all[0]?.lines[0];
  if (header === undefined || !/^WEBVTT(?:[ \t].*)?$/.test(header.text)) {
    throw new HypothesisSyntaxError(`line ${header?.line ?? 1}`, '"WEBVTT" on the first line (a WebVTT file)');
  }
  const words: HypothesisWord[] = [];
  let voiced = false;
  for (const b of all.slice(1)) {
    const first = b.lines[0]!;
    if (/^(NOTE|STYLE|REGION)(\s|$)/.test(first.text)) continue;
    const hasId = !first.text.includes('-->');
    const time = hasId ? b.lines[1] : first;
    if (time === undefined || !time.text.includes('-->')) {
      throw new HypothesisSyntaxError(`line ${time?.line ?? first.line + 1}`, 'a cue timing "00:01.000 --> 00:02.500"');
    }
    const [start, end] = timing(time, '.', true, '00:01.000 --> 00:02.500');
    const cueText = b.lines
      .slice(hasId ? 2 : 1)
      .map((l) => l.text)
      .join(' ');
    const speaker = voiceOf(cueText);
    if (speaker !== null) voiced = true;
    words.push(...spreadWords(stripTags(cueText), start, end, speaker));
  }
  words.sort((a, b) => a.start! - b.start!);
  const turns = voiced ? cueTurns(words) : null;
  return { words, turns, summary: null };
}

/** One turn per run of a speaker's consecutive words (voiced cues only). */
function cueTurns(words: readonly HypothesisWord[]): { speaker: string; start: number; end: number }[] {
  const turns: { speaker: string; start: number; end: number }[] = [];
  for (const w of words) {
    if (w.speaker === null) continue;
    const last = turns[turns.length - 1];
    if (last !== undefined && last.speaker === w.speaker && w.start! <= last.end) last.end = Math.max(last.end, w.end!);
    else turns.push({ speaker: w.speaker, start: w.start!, end: w.end! });
  }
  return turns;
}
