/**
 * The Meeting Automation API's own outputs as hypotheses
 * (docs/spec/API.md; server/features/meetings/schemas.ts and export.ts):
 *
 *   api-json    GET /v1/meetings/{id}/transcript (TranscriptResponse: segments with
 *               speaker, start, end, text, words) or GET /v1/meetings/{id}/export
 *               (ExportDto: meeting, transcript, summary); also meeteval's SegLST
 *               (an array of session_id, speaker, start_time, end_time, words).
 *   api-export  the export's rendered documents, ?format=txt or md: "[hh:mm:ss]
 *               Speaker: text" per segment under TRANSCRIPT (or "## Transcript"),
 *               the summary under SUMMARY. Segments have start times only, so
 *               this gives words and speakers but no diarization turns.
 */
import { z } from 'zod';
import { HypothesisSyntaxError, numberedLines, spreadWords } from './hypothesis.ts';
import type { HypothesisWord, ParsedHypothesis } from './hypothesis.ts';

const Seconds = z.number().nonnegative();

const ApiSegment = z.object({
  speaker: z.string(),
  start: Seconds,
  end: Seconds,
  text: z.string(),
  words: z.array(z.object({ text: z.string(), start: Seconds, end: Seconds })).optional(),
});

const Transcript = z.object({ segments: z.array(ApiSegment) });

const Export = z.object({
  transcript: Transcript,
  summary: z
    .object({ result: z.object({ text: z.string() }).nullable() })
    .nullable()
    .optional(),
});

const SegLst = z.array(
  z.object({ session_id: z.string().optional(), speaker: z.string(), start_time: Seconds, end_time: Seconds, words: z.string() }),
);

/** "line 3 column 7" of a JSON syntax error, from the parser's message where it says. */
function jsonErrorWhere(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  const lc = /line (\d+) column (\d+)/.exec(message);
  if (lc !== null) return `line ${lc[1]} column ${lc[2]}`;
  const pos = /position (\d+)/.exec(message);
  if (pos !== null) return `line ${text.slice(0, Number(pos[1])).split('\n').length}`;
  return 'line 1';
}

/** The first problem zod found, as where and what. */
function schemaProblem(error: z.ZodError, expected: string): HypothesisSyntaxError {
  const issue = error.issues[0]!;
  const where = issue.path.reduce<string>(
    (acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc === '' ? String(p) : `${acc}.${String(p)}`),
    '',
  );
  return new HypothesisSyntaxError(where === '' ? 'the top level' : where, `${expected} (${issue.message})`);
}

type Segment = z.infer<typeof ApiSegment>;

function fromSegments(segments: readonly Segment[], summary: string | null): ParsedHypothesis {
  const ordered = [...segments].sort((a, b) => a.start - b.start);
  const words: HypothesisWord[] = ordered.flatMap((s) =>
    s.words !== undefined && s.words.length > 0
      ? s.words.map((w) => ({ text: w.text, start: w.start, end: w.end, speaker: s.speaker }))
      : spreadWords(s.text, s.start, s.end, s.speaker),
  );
  return { words, turns: ordered.map((s) => ({ speaker: s.speaker, start: s.start, end: s.end })), summary };
}

/** The API's transcript or export JSON, or a SegLST array. */
export function parseApiJson(text: string): ParsedHypothesis {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new HypothesisSyntaxError(jsonErrorWhere(text, error), 'JSON (the API’s transcript or export, or a SegLST array)');
  }
  if (Array.isArray(value)) {
    const seglst = SegLst.safeParse(value);
    if (!seglst.success) throw schemaProblem(seglst.error, 'SegLST segments {session_id, speaker, start_time, end_time, words}');
    return fromSegments(
      seglst.data.map((s) => ({ speaker: s.speaker, start: s.start_time, end: s.end_time, text: s.words })),
      null,
    );
  }
  if (typeof value === 'object' && value !== null && 'transcript' in value) {
    const exported = Export.safeParse(value);
    if (!exported.success) throw schemaProblem(exported.error, 'the export’s {meeting, transcript: {segments}, summary}');
    return fromSegments(exported.data.transcript.segments, exported.data.summary?.result?.text ?? null);
  }
  const transcript = Transcript.safeParse(value);
  if (!transcript.success) throw schemaProblem(transcript.error, 'the transcript’s {segments: [{speaker, start, end, text, words}]}');
  return fromSegments(transcript.data.segments, null);
}

/** "[hh:mm:ss] Speaker: text" (txt) or "**[hh:mm:ss] Speaker:** text" (md). */
const SEGMENT_LINE = /^(?:\*\*)?\[(\d+):([0-5]\d):([0-5]\d)\] (.+?):(?:\*\*)? (.*)$/;

/** Markdown's backslash escapes undone (export.ts escapes ASCII punctuation so). */
const unescapeMarkdown = (text: string): string => text.replace(/\\([!-/:-@[-`{-~])/g, '$1');

/** The export's txt or md document. */
export function parseApiExport(text: string): ParsedHypothesis {
  const lines = numberedLines(text);
  const markdown = lines[0]?.text.startsWith('# ') ?? false;
  const summaryAt = lines.findIndex((l) => l.text === (markdown ? '## Summary' : 'SUMMARY'));
  const transcriptAt = lines.findIndex((l) => l.text === (markdown ? '## Transcript' : 'TRANSCRIPT'));
  if (transcriptAt < 0) {
    throw new HypothesisSyntaxError(
      `line ${lines.length}`,
      `a "${markdown ? '## Transcript' : 'TRANSCRIPT'}" heading (the API's export as txt or md)`,
    );
  }
  const segments: { speaker: string; start: number; text: string; line: number }[] = [];
  for (const l of lines.slice(transcriptAt + 1)) {
    const t = l.text.trim();
    if (t === '' || t === '(no transcript)' || t === '_No transcript._') continue;
    const m = SEGMENT_LINE.exec(t);
    if (m === null) throw new HypothesisSyntaxError(`line ${l.line}`, `a segment "[hh:mm:ss] Speaker: text", got "${t.slice(0, 60)}"`);
    const speaker = markdown ? unescapeMarkdown(m[4]!) : m[4]!;
    segments.push({
      speaker,
      start: Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]),
      text: markdown ? unescapeMarkdown(m[5]!) : m[5]!,
      line: l.line,
    });
  }
  // A segment lasts until the next one starts (the export gives no end); a second for the last.
  const words = segments.flatMap((s, i) =>
    spreadWords(s.text, s.start, Math.max(s.start, segments[i + 1]?.start ?? s.start + 1), s.speaker),
  );
  const summary =
    summaryAt >= 0 && summaryAt < transcriptAt
      ? lines
          .slice(summaryAt + 1, transcriptAt)
          .map((l) => (markdown ? unescapeMarkdown(l.text.replace(/^#+ /, '')) : l.text))
          .join('\n')
          .trim()
      : null;
  return { words, turns: null, summary };
}
