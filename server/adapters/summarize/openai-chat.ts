/**
 * Summaries written by a language model behind an OpenAI-compatible
 * `POST <base_url>/v1/chat/completions` (OpenAI, or a local llama.cpp /
 * vLLM / Ollama server). Configured by MAS_SUMMARY_URL, MAS_SUMMARY_API_KEY,
 * MAS_SUMMARY_MODEL and MAS_SUMMARY_TIMEOUT_MS (per request, default 5 min); decisions 011, 024.
 *
 * The model is told the template's sections and what goes in each, gets the
 * transcript as "Speaker: text" lines, and is asked for a JSON object
 * {"sections": [{"title", "text"}]} (response_format json_object). Its answer
 * is read defensively: code fences are stripped, sections without text are
 * dropped, and anything that is not such an object becomes one "Summary"
 * section holding the whole answer. Errors map as for the recognizer
 * (callEndpoint).
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
import { EmptyTranscriptError, renderSections } from './extractive.ts';
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
        { role: 'user', content: `Meeting title: ${input.title}\n\nTranscript:\n${transcript}` },
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
    const sections = parseSections(messageContent(answer));
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
    'In each text, write short bullet lines starting with "- ", name who said or owns each ' +
      'point, and use only what the transcript says.',
    `Write in ${lang}.`,
  ].join('\n');
}

/** "Speaker: text" lines, cut at a line boundary when the transcript is longer than the limit. */
export function transcriptLines(segments: SummaryInput['segments'], maxChars: number): string {
  const lines: string[] = [];
  let used = 0;
  for (const s of segments) {
    const text = s.text.replace(/\s+/g, ' ').trim();
    if (text === '') continue;
    const line = `${s.speaker_name?.trim() || s.speaker}: ${text}`;
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
  return [{ title: 'Summary', text: content.trim() }];
}
