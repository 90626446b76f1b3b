/**
 * The rendered forms of GET /v1/meetings/{id}/export: a Markdown document and
 * its plain-text equivalent (docs/decisions/004-meeting-transcript-summary-shapes.md).
 *
 * Both carry the same parts in the same order: the title, a line with the
 * date and duration, the summary when there is one, then the transcript, one
 * paragraph per segment: "[hh:mm:ss] Speaker: text", where Speaker is the
 * label's display name, else the cluster key.
 *
 * The summary appears once (decision 078): a generated summary has sections,
 * and its `text` is those sections rendered, so the sections are shown (each a
 * heading, its "- " lines a list) and `text` is not; a summary without
 * sections (written by hand, PUT /summary) shows its text.
 *
 * Markdown: every piece of user text (title, speaker names, summary,
 * segment text) goes through `escapeMarkdown`, so a title such as "# x" or
 * "*y*" shows literally instead of becoming markup.
 */
import type { ExportData, SegmentDto } from './service.ts';

export type ExportFormat = 'md' | 'txt';

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  md: 'text/markdown; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
};

export function renderExport(data: ExportData, format: ExportFormat): string {
  return format === 'md' ? renderMarkdown(data) : renderText(data);
}

// ── Markdown ─────────────────────────────────────────────────────────────

export function renderMarkdown(data: ExportData): string {
  const { meeting, transcript, summary } = data;
  const out: string[] = [];
  out.push(`# ${escapeMarkdown(oneLine(meeting.title)) || 'Untitled meeting'}`, '');
  out.push(`**Date:** ${formatDate(meeting.created_at)} · **Duration:** ${formatDuration(meeting.duration_seconds)}`, '');

  const result = summary?.result ?? null;
  if (result !== null) {
    out.push('## Summary', '');
    if (result.sections.length === 0) {
      if (result.text.trim() !== '') out.push(markdownBlock(result.text), '');
    }
    for (const section of result.sections) {
      out.push(`### ${escapeMarkdown(oneLine(section.title))}`, '');
      if (section.text.trim() !== '') out.push(markdownBlock(section.text), '');
    }
  }

  out.push('## Transcript', '');
  if (transcript.segments.length === 0) {
    out.push('_No transcript._', '');
  }
  for (const seg of transcript.segments) {
    // The timestamp's brackets stay bare: a bracket pair is a link only with
    // a matching definition, and escaped user text can never define one.
    out.push(`**[${formatTimestamp(seg.start)}] ${escapeMarkdown(oneLine(speakerOf(seg)))}:** ${escapeMarkdown(oneLine(seg.text))}`, '');
  }
  return `${out.join('\n').trimEnd()}\n`;
}

/**
 * Escapes Markdown-significant characters with a backslash (CommonMark lets
 * any ASCII punctuation be escaped so). Characters that are markup anywhere in
 * a line are always escaped; those that are markup only at the start of a
 * line (lists, block quotes, headings' underlines, ordered-list numbers) are
 * escaped there. `&` is escaped only where it would start an entity.
 */
export function escapeMarkdown(text: string): string {
  let escaped = text.replace(/[\\`*_[\]<>|~#]/g, '\\$&').replace(/&(?=#?[A-Za-z0-9]+;)/g, '\\&');
  // Line-start markup: "- x", "+ x", "= " / "- " underlines, "> " quotes, "1. " and "1) ".
  escaped = escaped.replace(/^(\s*)([-+=>])/, '$1\\$2').replace(/^(\s*\d+)([.)])/, '$1\\$2');
  return escaped;
}

/**
 * A multi-line user text as Markdown: lines starting with "- " (or "* ")
 * become list items, every other line its own paragraph, so each line of a
 * summary reads as one line in the file and in the rendering — no hard-break
 * backslashes. The text of each line is escaped; leading indentation is
 * dropped so four spaces never turn a line into a code block.
 */
function markdownBlock(text: string): string {
  const blocks: string[] = [];
  let list: string[] = [];
  const flush = () => {
    if (list.length > 0) blocks.push(list.join('\n'));
    list = [];
  };
  for (const raw of text.replace(/\r\n?/g, '\n').split('\n')) {
    const line = raw.trim();
    if (line === '') {
      flush();
      continue;
    }
    const item = /^[-*•]\s+(.*)$/u.exec(line);
    if (item !== null) list.push(`- ${escapeMarkdown(item[1]!.trim())}`);
    else {
      flush();
      blocks.push(escapeMarkdown(line));
    }
  }
  flush();
  return blocks.join('\n\n');
}

// ── Plain text ───────────────────────────────────────────────────────────

export function renderText(data: ExportData): string {
  const { meeting, transcript, summary } = data;
  const title = oneLine(meeting.title) || 'Untitled meeting';
  const out: string[] = [];
  out.push(title, '='.repeat(Math.min(80, Math.max(3, Array.from(title).length))), '');
  out.push(`Date: ${formatDate(meeting.created_at)} · Duration: ${formatDuration(meeting.duration_seconds)}`, '');

  const result = summary?.result ?? null;
  if (result !== null) {
    out.push('SUMMARY', '');
    if (result.sections.length === 0 && result.text.trim() !== '') out.push(result.text.replace(/\r\n?/g, '\n').trim(), '');
    for (const section of result.sections) {
      out.push(oneLine(section.title), '');
      if (section.text.trim() !== '') out.push(section.text.replace(/\r\n?/g, '\n').trim(), '');
    }
  }

  out.push('TRANSCRIPT', '');
  if (transcript.segments.length === 0) out.push('(no transcript)', '');
  for (const seg of transcript.segments) {
    out.push(`[${formatTimestamp(seg.start)}] ${oneLine(speakerOf(seg))}: ${oneLine(seg.text)}`);
  }
  return `${out.join('\n').trimEnd()}\n`;
}

// ── Shared pieces ────────────────────────────────────────────────────────

function speakerOf(seg: SegmentDto): string {
  return seg.speaker_name ?? seg.speaker;
}

/** Collapses line breaks and runs of whitespace, so one value stays on one line. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** "2026-11-20 09:00 UTC" from an ISO timestamp. */
function formatDate(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 16)} UTC`;
}

/** hh:mm:ss, seconds rounded down; hours keep counting past 99. */
export function formatTimestamp(seconds: number): string {
  const total = Math.max(0, Math.floor(seconds));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
}

function formatDuration(seconds: number | null): string {
  return seconds === null ? 'unknown' : formatTimestamp(seconds);
}

/**
 * The Content-Disposition of an export: an ASCII file name made from the
 * title (accents dropped, anything else outside [A-Za-z0-9 ._-] replaced),
 * plus the exact title in RFC 5987 form for clients that read it.
 */
export function contentDisposition(title: string, format: ExportFormat): string {
  const ascii = safeAsciiName(title);
  const exact = encodeRFC5987(`${oneLine(title) || 'meeting'}.${format}`);
  return `inline; filename="${ascii}.${format}"; filename*=UTF-8''${exact}`;
}

export function safeAsciiName(title: string): string {
  const name = title
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^A-Za-z0-9 ._-]+/g, '_')
    .replace(/\s+/g, ' ')
    .replace(/_+/g, '_')
    .replace(/^[\s._-]+|[\s._-]+$/g, '')
    .slice(0, 80)
    .trim();
  return name === '' ? 'meeting' : name;
}

function encodeRFC5987(text: string): string {
  return encodeURIComponent(text).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
