/**
 * NIST's formats as hypotheses: STM and CTM (sclite's; sctk's
 * doc/infmts.htm) and RTTM (md-eval's). One recording per file: a second
 * file id is refused, since a truth file is one meeting. Lines starting with
 * ";;" are comments.
 */
import type { DiarizationTurn } from '../der.ts';
import { HypothesisSyntaxError, numberAt, numberedLines, spreadWords } from './hypothesis.ts';
import type { HypothesisWord, ParsedHypothesis } from './hypothesis.ts';

const isComment = (t: string): boolean => t.trim() === '' || t.trimStart().startsWith(';;');

/** Checks that every line names the same recording as the first. */
function oneRecording(): (id: string, line: number) => void {
  let first: string | undefined;
  return (id, line) => {
    first ??= id;
    if (id !== first) throw new HypothesisSyntaxError(`line ${line}`, `one recording per file ("${first}"), got "${id}"`);
  };
}

/** sclite's marker for a stretch excluded from scoring: its segment contributes no words. */
const IGNORE_SEGMENT = 'ignore_time_segment_in_scoring';

/** STM: "<file> <channel> <speaker> <start> <end> [<label>] words...". */
export function parseStm(text: string): ParsedHypothesis {
  const words: HypothesisWord[] = [];
  const turns: DiarizationTurn[] = [];
  const same = oneRecording();
  const segments: { start: number; words: HypothesisWord[] }[] = [];
  for (const { line, text: raw } of numberedLines(text)) {
    if (isComment(raw)) continue;
    const f = raw.trim().split(/\s+/);
    if (f.length < 5)
      throw new HypothesisSyntaxError(`line ${line}`, '"<file> <channel> <speaker> <start> <end> [<label>] words" (an STM line)');
    same(f[0]!, line);
    const start = numberAt(f[3], line, 'the start time (field 4)');
    const end = numberAt(f[4], line, 'the end time (field 5)');
    if (end < start) throw new HypothesisSyntaxError(`line ${line}`, `an end time (${end}) at or after the start (${start})`);
    let rest = f.slice(5);
    if (rest[0]?.startsWith('<')) {
      if (!rest[0].endsWith('>')) throw new HypothesisSyntaxError(`line ${line}`, 'a label "<...>" without spaces in field 6');
      rest = rest.slice(1);
    }
    const speaker = f[2]!;
    turns.push({ speaker, start, end });
    if (rest.length === 1 && rest[0]!.toLowerCase() === IGNORE_SEGMENT) continue;
    segments.push({ start, words: spreadWords(rest.join(' '), start, end, speaker) });
  }
  // sclite reads segments in time order; so do we, whatever the file's order.
  segments.sort((a, b) => a.start - b.start);
  for (const s of segments) words.push(...s.words);
  return { words, turns, summary: null };
}

/** CTM: "<file> <channel> <start> <duration> <word> [<confidence>]". */
export function parseCtm(text: string): ParsedHypothesis {
  const words: HypothesisWord[] = [];
  const same = oneRecording();
  for (const { line, text: raw } of numberedLines(text)) {
    if (isComment(raw)) continue;
    const f = raw.trim().split(/\s+/);
    if (f.length < 5 || f.length > 6) {
      throw new HypothesisSyntaxError(
        `line ${line}`,
        '"<file> <channel> <start> <duration> <word> [<confidence>]" (a CTM line of 5 or 6 fields)',
      );
    }
    same(f[0]!, line);
    const start = numberAt(f[2], line, 'the start time (field 3)');
    const duration = numberAt(f[3], line, 'the duration (field 4)');
    if (f.length === 6 && f[5] !== 'NA' && !Number.isFinite(Number(f[5]))) {
      throw new HypothesisSyntaxError(`line ${line}`, `a confidence (field 6) as a number or NA, got "${f[5]}"`);
    }
    words.push({ text: f[4]!, start, end: start + duration, speaker: null });
  }
  // Stable: words of equal start keep the file's order.
  words.sort((a, b) => a.start! - b.start!);
  return { words, turns: null, summary: null };
}

/** The RTTM record types of md-eval; lines of any other type are refused. */
const RTTM_TYPES = new Set([
  'SEGMENT',
  'NOSCORE',
  'NO_RT_METADATA',
  'LEXEME',
  'NON-LEX',
  'NON-SPEECH',
  'FILLER',
  'EDIT',
  'IP',
  'END-OF-SU',
  'SU',
  'CB',
  'A/P',
  'SPEAKER',
  'SPKR-INFO',
]);

/** RTTM: the SPEAKER lines, "SPEAKER <file> <channel> <start> <duration> <NA> <NA> <speaker> <NA> [<NA>]"; other record types are skipped. */
export function parseRttmStrict(text: string): ParsedHypothesis {
  const turns: DiarizationTurn[] = [];
  const same = oneRecording();
  for (const { line, text: raw } of numberedLines(text)) {
    if (isComment(raw)) continue;
    const f = raw.trim().split(/\s+/);
    if (!RTTM_TYPES.has(f[0]!.toUpperCase())) {
      throw new HypothesisSyntaxError(
        `line ${line}`,
        `an RTTM record ("SPEAKER <file> <channel> <start> <duration> <NA> <NA> <speaker> <NA> <NA>"), got "${f[0]}"`,
      );
    }
    if (f[0] !== 'SPEAKER') continue;
    if (f.length < 9) throw new HypothesisSyntaxError(`line ${line}`, 'at least 9 fields in a SPEAKER line (the speaker is field 8)');
    same(f[1]!, line);
    const start = numberAt(f[3], line, 'the start time (field 4)');
    const duration = numberAt(f[4], line, 'the duration (field 5)');
    turns.push({ speaker: f[7]!, start, end: start + duration });
  }
  return { words: [], turns, summary: null };
}
