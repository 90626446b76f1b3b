/**
 * Summaries written by a language model behind an OpenAI-compatible
 * `POST <base_url>/v1/chat/completions` (OpenAI, or a local llama.cpp /
 * vLLM / Ollama server). Configured by MAS_SUMMARY_URL, MAS_SUMMARY_API_KEY,
 * MAS_SUMMARY_MODEL and MAS_SUMMARY_TIMEOUT_MS (per request, default 5 min); decisions 011, 024.
 *
 * The model is told the template's sections and what goes in each, gets the
 * transcript as "(mm:ss) Speaker: text" lines with the meeting's date, and is
 * asked for a JSON object {"sections": [{"title", "text"}]} (response_format
 * json_object) whose items are lines in the extractive notes' form (decision
 * 078): "- (mm:ss) Speaker: …", action items "- (mm:ss) Owner: …. Task: ….
 * Due: YYYY-MM-DD.". Its answer is read defensively: code fences are
 * stripped, sections without text are dropped, the sections are put in the
 * template's order under its titles (a section the model left out gets the
 * template's "nothing" line, bullets become "- "), and anything that is not
 * such an object becomes one "Summary" section holding the whole answer.
 * Errors map as for the recognizer (callEndpoint).
 */
import {
  CancelledError,
  StageError,
  type StageControl,
  type Summarizer,
  type SummaryInput,
  type SummaryOutput,
} from '../../pipeline/types.ts';
import { callEndpoint, normalizeBaseUrl } from '../asr/openai-compatible.ts';
import { clockTime, EmptyTranscriptError, renderSections } from './extractive.ts';
import { templateFor, type SummaryTemplate } from './templates.ts';

/** Transcript characters sent at most (≈ 15k tokens): small local models have small contexts. */
const MAX_TRANSCRIPT_CHARS = 60_000;
const REQUEST_TIMEOUT_MS = 5 * 60_000;

export interface OpenAiChatOptions {
  baseUrl: string | undefined;
  apiKey?: string;
  /** The chat model, e.g. gpt-4o-mini or whatever the local server serves. */
  model: string;
  requestTimeoutMs?: number;
  maxTranscriptChars?: number;
}

export class OpenAiChatSummarizer implements Summarizer {
  readonly name = 'openai-compatible';
  readonly model: string;
  readonly #opts: OpenAiChatOptions;

  constructor(opts: OpenAiChatOptions) {
    this.#opts = opts;
    this.model = opts.model;
  }

  async summarize(input: SummaryInput, control: StageControl): Promise<SummaryOutput> {
    if (control.signal.aborted) throw new CancelledError();
    const transcript = transcriptLines(input.segments, this.#opts.maxTranscriptChars ?? MAX_TRANSCRIPT_CHARS);
    const date = meetingDay(input.meetingDate);
    if (transcript === '') throw new EmptyTranscriptError();
    const base = normalizeBaseUrl(this.#opts.baseUrl);
    if (base === null)
      throw new StageError('the openai-compatible summarizer is not configured: set MAS_SUMMARY_URL', {
        retryable: true,
        dependencyMissing: true,
      });
    const template = templateFor(input.templateId);
    const body = {
      model: this.model,
      temperature: 0,
      response_format: { type: 'json_object' },
      messages: [
        { role: 'system', content: systemPrompt(template, input.language) },
        {
          role: 'user',
          content: `Meeting title: ${input.title}\n${date === null ? '' : `Meeting date: ${date}\n`}\nTranscript:\n${transcript}`,
        },
      ],
    };
    const answer = await callEndpoint(
      `${base}/v1/chat/completions`,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
      {
        what: 'the summary endpoint',
        apiKey: this.#opts.apiKey,
        signal: control.signal,
        timeoutMs: this.#opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
      },
    );
    const content = messageContent(answer);
    const parsed = parseJsonSections(content);
    const sections = parsed === null ? [{ title: 'Summary', text: content.trim() }] : shapeToTemplate(template, parsed);
    control.progress(1);
    return { text: renderSections(sections), sections, model: this.model };
  }
}

function systemPrompt(template: SummaryTemplate, language: string | null): string {
  const sections = template.sections.map((s) => `- "${s.title}": ${s.describe}. If nothing fits, write "${s.empty}"`).join('\n');
  const lang = language === null || language === '' ? 'the language of the transcript' : `the language with code "${language}"`;
  return [
    `You summarize meeting transcripts as "${template.title}" notes.`,
    `Answer with only a JSON object of this shape: {"sections": [{"title": string, "text": string}]}, with these sections in this order:`,
    sections,
    'In each text, write one line per item starting with "- " and the time in parentheses of the transcript line it ' +
      'comes from, then who said it: "- (12:05) Alice: we go with the rubber case (agreed by Ben)". Write an action ' +
      'item as "- (12:40) Owner: Ben. Task: send the minutes to the client. Due: 2026-11-27." with the due date as ' +
      'YYYY-MM-DD counted from the meeting date, and leave "Due" out when no date was said. Use only what the transcript says.',
    `Write in ${lang}.`,
  ].join('\n');
}

/** "(mm:ss) Speaker: text" lines, cut at a line boundary when the transcript is longer than the limit. */
export function transcriptLines(segments: SummaryInput['segments'], maxChars: number): string {
  const lines: string[] = [];
  let used = 0;
  for (const s of segments) {
    const text = s.text.replace(/\s+/g, ' ').trim();
    if (text === '') continue;
    const line = `(${clockTime(s.start)}) ${s.speaker_name?.trim() || s.speaker}: ${text}`;
    if (used + line.length + 1 > maxChars && lines.length > 0) {
      lines.push('[the rest of the transcript is left out for length]');
      break;
    }
    lines.push(line);
    used += line.length + 1;
  }
  return lines.join('\n');
}

function messageContent(answer: unknown): string {
  const choices = (answer as { choices?: unknown } | null)?.choices;
  const content = Array.isArray(choices) ? (choices[0] as { message?: { content?: unknown } } | undefined)?.message?.content : undefined;
  if (typeof content !== 'string' || content.trim() === '')
    throw new StageError('the summary endpoint answered without any message content', { retryable: true });
  return content;
}

/** The sections of the model's answer; the whole answer as one section when it is not the JSON asked for. */
export function parseSections(content: string): { title: string; text: string }[] {
  return parseJsonSections(content) ?? [{ title: 'Summary', text: content.trim() }];
}

/**
 * The model's sections in the template's shape: its titles in its order (a
 * title matched without regard to case), the template's "nothing" line for a
 * section left out, list bullets ("*", "•", "1.") as "- ". Sections the model
 * added are kept after them.
 */
function shapeToTemplate(
  template: SummaryTemplate,
  sections: readonly { title: string; text: string }[],
): { title: string; text: string }[] {
  const key = (t: string) =>
    t
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim();
  const byTitle = new Map(sections.map((s) => [key(s.title), s]));
  const bullets = (text: string) =>
    text
      .split('\n')
      .map((l) => l.replace(/^\s*(?:[*•·]|\d+[.)])\s+/u, '- ').trimEnd())
      .join('\n');
  const shaped = template.sections.map((t) => {
    const found = byTitle.get(key(t.title));
    return { title: t.title, text: found === undefined ? t.empty : bullets(found.text) };
  });
  const known = new Set(template.sections.map((t) => key(t.title)));
  return [...shaped, ...sections.filter((s) => !known.has(key(s.title))).map((s) => ({ title: s.title, text: bullets(s.text) }))];
}

/** YYYY-MM-DD of the meeting, or null when unknown. */
function meetingDay(date: string | null | undefined): string | null {
  if (date === null || date === undefined) return null;
  const d = new Date(date);
  return Number.isNaN(d.getTime()) ? null : d.toISOString().slice(0, 10);
}

function parseJsonSections(content: string): { title: string; text: string }[] | null {
  const unfenced = content
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  try {
    const doc = JSON.parse(unfenced) as { sections?: unknown };
    if (Array.isArray(doc.sections)) {
      const sections = doc.sections.flatMap((s: unknown) => {
        const { title, text } = (s ?? {}) as { title?: unknown; text?: unknown };
        const body =
          typeof text === 'string' ? text.trim() : Array.isArray(text) ? text.filter((t) => typeof t === 'string').join('\n') : '';
        return typeof title === 'string' && title.trim() !== '' && body !== '' ? [{ title: title.trim(), text: body }] : [];
      });
      if (sections.length > 0) return sections;
    }
  } catch {
    // not JSON: fall through
  }
  return null;
}
