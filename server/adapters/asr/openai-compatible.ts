/**
 * Speech recognition by an OpenAI-compatible HTTP endpoint
 * (`POST <base_url>/v1/audio/transcriptions`: OpenAI itself, or a local
 * whisper server that speaks the same API). Configured by MAS_TRANSCRIBE_URL,
 * MAS_TRANSCRIBE_API_KEY and MAS_TRANSCRIBE_MODEL; decisions in
 * docs/decisions/011-recognizers-and-summarizers.md.
 *
 * Only the speech regions are sent, as 16 kHz 16-bit WAV, in chunks of at
 * most ten minutes (OpenAI refuses files over 25 MB), one request at a time.
 * `callEndpoint` holds the error mapping the chat summarizer shares.
 */
import { wavFromPcm16 } from '../../../common/audio/wav.ts';
import {
  CancelledError,
  PIPELINE_SAMPLE_RATE,
  StageError,
  type PcmAudio,
  type RecognitionOptions,
  type RecognizedWord,
  type Recognizer,
  type SpeechRegion,
  type StageControl,
} from '../../pipeline/types.ts';
import { mapToSourceTime, planDecodeSpans, SPAN_GAP_SECONDS, type DecodePlan, type DecodeSpan, type FileWord } from './spans.ts';
import { buildPrompt, spreadWords, UNKNOWN_CONFIDENCE, whisperLanguage } from './whisper-cpp.ts';

const DEFAULT_TRANSCRIBE_MODEL = 'whisper-1';
/** 10 minutes of 16-bit 16 kHz mono is 19.2 MB, under OpenAI's 25 MB limit. */
const MAX_CHUNK_SECONDS = 600;
/** One chunk's request may take this long before it counts as failed (retryable). */
const REQUEST_TIMEOUT_MS = 10 * 60_000;

export interface OpenAiCompatibleOptions {
  /** The server's base URL, e.g. http://localhost:8000 (a trailing /v1 is accepted). Undefined: not configured. */
  baseUrl: string | undefined;
  apiKey?: string;
  /** Model when the import names none; default whisper-1. */
  model?: string;
  requestTimeoutMs?: number;
  maxChunkSeconds?: number;
}

export class OpenAiCompatibleRecognizer implements Recognizer {
  readonly name = 'openai-compatible';
  readonly #opts: OpenAiCompatibleOptions;

  constructor(opts: OpenAiCompatibleOptions) {
    this.#opts = opts;
  }

  /** Configured and answering HTTP at all (any status: some servers have no GET /v1/models). */
  async available(): Promise<boolean> {
    const base = normalizeBaseUrl(this.#opts.baseUrl);
    if (base === null) return false;
    try {
      const res = await fetch(`${base}/v1/models`, { headers: authHeader(this.#opts.apiKey), signal: AbortSignal.timeout(3000) });
      await res.body?.cancel();
      return true;
    } catch {
      return false;
    }
  }

  async transcribe(
    audio: PcmAudio,
    regions: readonly SpeechRegion[],
    options: RecognitionOptions,
    control: StageControl,
  ): Promise<RecognizedWord[]> {
    if (control.signal.aborted) throw new CancelledError();
    const base = normalizeBaseUrl(this.#opts.baseUrl);
    if (base === null)
      throw new StageError('the openai-compatible recognizer is not configured: set MAS_TRANSCRIBE_URL', {
        retryable: true,
        dependencyMissing: true,
      });
    const chunks = chunkPlan(planDecodeSpans(regions, audio.durationSeconds), this.#opts.maxChunkSeconds ?? MAX_CHUNK_SECONDS);
    const total = chunks.reduce((n, c) => n + c.fileDuration, 0);
    const language = whisperLanguage(options.language);
    const prompt = buildPrompt(options.initialPrompt, options.customWords);
    const words: RecognizedWord[] = [];
    let done = 0;
    for (const chunk of chunks) {
      await control.checkpoint();
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(chunkWav(audio, chunk))], { type: 'audio/wav' }), 'speech.wav');
      form.append('model', options.model ?? this.#opts.model ?? DEFAULT_TRANSCRIBE_MODEL);
      if (language !== 'auto') form.append('language', language);
      if (prompt !== '') form.append('prompt', prompt);
      form.append('response_format', 'verbose_json');
      // Words for timing; segments for avg_logprob, the confidence when words carry none.
      form.append('timestamp_granularities[]', 'word');
      form.append('timestamp_granularities[]', 'segment');
      const body = await callEndpoint(
        `${base}/v1/audio/transcriptions`,
        { method: 'POST', body: form },
        {
          what: 'the transcription endpoint',
          apiKey: this.#opts.apiKey,
          signal: control.signal,
          timeoutMs: this.#opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
        },
      );
      words.push(...mapToSourceTime(parseTranscription(body, chunk.fileDuration), chunk, audio.durationSeconds));
      done += chunk.fileDuration;
      control.progress(total > 0 ? done / total : 1);
    }
    return words;
  }
}

// ── Request body and response ────────────────────────────────────────────

/** Splits a decode plan into plans of at most maxSeconds of file each (long regions are cut). */
export function chunkPlan(plan: DecodePlan, maxSeconds: number): DecodePlan[] {
  const chunks: DecodePlan[] = [];
  let spans: DecodeSpan[] = [];
  let at = 0;
  const flush = () => {
    if (spans.length > 0) chunks.push({ spans, fileDuration: at });
    spans = [];
    at = 0;
  };
  for (const span of plan.spans) {
    let start = span.sourceStart;
    while (start < span.sourceEnd - 1e-9) {
      const gap = spans.length > 0 ? SPAN_GAP_SECONDS : 0;
      const room = maxSeconds - at - gap;
      // Less than a second left: start the next chunk rather than send a sliver.
      if (spans.length > 0 && room < 1) {
        flush();
        continue;
      }
      const end = Math.min(span.sourceEnd, start + room);
      at += gap;
      spans.push({ sourceStart: start, sourceEnd: end, fileStart: at });
      at += end - start;
      start = end;
    }
  }
  flush();
  return chunks;
}

/** The chunk as a WAV file: its spans with a second of faint noise between them (as the pocketsphinx file). */
function chunkWav(audio: PcmAudio, chunk: DecodePlan): Buffer {
  const rate = PIPELINE_SAMPLE_RATE;
  const pcm = Buffer.alloc(Math.round(chunk.fileDuration * rate) * 2 + 4);
  let noise = 1;
  let out = 0;
  chunk.spans.forEach((span, i) => {
    if (i > 0) {
      for (let n = 0; n < Math.round(SPAN_GAP_SECONDS * rate) && out + 2 <= pcm.length; n++, out += 2) {
        noise = (noise * 1103515245 + 12345) & 0x7fffffff;
        pcm.writeInt16LE((noise % 7) - 3, out);
      }
    }
    const from = Math.round(span.sourceStart * rate);
    const to = Math.min(audio.samples.length, Math.round(span.sourceEnd * rate));
    for (let j = from; j < to && out + 2 <= pcm.length; j++, out += 2) {
      pcm.writeInt16LE(Math.round(Math.max(-1, Math.min(1, audio.samples[j]!)) * 32767), out);
    }
  });
  return wavFromPcm16(pcm.subarray(0, out));
}

interface VerboseWord {
  word?: unknown;
  start?: unknown;
  end?: unknown;
  probability?: unknown;
}

interface VerboseSegment {
  start?: unknown;
  end?: unknown;
  text?: unknown;
  avg_logprob?: unknown;
}

/**
 * Words of a verbose_json answer. Confidence: the word's `probability` when
 * the server gives one (faster-whisper servers do), else exp(avg_logprob) of
 * the segment it falls in, else UNKNOWN_CONFIDENCE. Without `words`, the
 * segments' text is shared out by word length; without segments, `text` over
 * the whole chunk.
 */
export function parseTranscription(body: unknown, chunkSeconds: number): FileWord[] {
  if (typeof body !== 'object' || body === null)
    throw new StageError('the transcription endpoint answered something that is not a JSON object', { retryable: true });
  const doc = body as { words?: unknown; segments?: unknown; text?: unknown };
  const segments = (Array.isArray(doc.segments) ? (doc.segments as VerboseSegment[]) : [])
    .map((s) => ({
      start: Number(s.start),
      end: Number(s.end),
      text: typeof s.text === 'string' ? s.text : '',
      confidence: fromLogprob(s.avg_logprob),
    }))
    .filter((s) => Number.isFinite(s.start) && Number.isFinite(s.end));
  if (Array.isArray(doc.words) && doc.words.length > 0) {
    return (doc.words as VerboseWord[]).flatMap((w) => {
      const text = typeof w.word === 'string' ? w.word.trim() : '';
      const start = Number(w.start);
      const end = Number(w.end);
      if (text === '' || !Number.isFinite(start) || !Number.isFinite(end)) return [];
      const mid = (start + end) / 2;
      const segment = segments.find((s) => s.start <= mid && mid <= s.end);
      const confidence =
        typeof w.probability === 'number' && Number.isFinite(w.probability)
          ? clamp01(w.probability)
          : (segment?.confidence ?? UNKNOWN_CONFIDENCE);
      return [{ text, start, end: Math.max(start, end), confidence }];
    });
  }
  if (segments.length > 0) return segments.flatMap((s) => spreadWords(s.text.trim(), s.start, Math.max(s.start, s.end), s.confidence));
  return typeof doc.text === 'string' ? spreadWords(doc.text.trim(), 0, chunkSeconds, UNKNOWN_CONFIDENCE) : [];
}

function fromLogprob(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? clamp01(Math.exp(value)) : UNKNOWN_CONFIDENCE;
}

function clamp01(x: number): number {
  return Math.max(0, Math.min(1, x));
}

// ── HTTP, shared with the chat summarizer ────────────────────────────────

/** "http://host:8000/", "http://host:8000/v1" → "http://host:8000"; null when unset or not http(s). */
export function normalizeBaseUrl(url: string | undefined): string | null {
  if (url === undefined || url.trim() === '') return null;
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  return parsed.href.replace(/\/+$/, '').replace(/\/v1$/, '');
}

function authHeader(apiKey: string | undefined): Record<string, string> {
  return apiKey !== undefined && apiKey !== '' ? { authorization: `Bearer ${apiKey}` } : {};
}

/**
 * Sends a request and returns its JSON body, mapping failures to StageError:
 * refused or unresolvable → dependencyMissing (retryable); other network
 * failures, timeouts, 408, 429 and 5xx → retryable; other 4xx → not retryable,
 * with the endpoint's own message. The API key never appears in a message.
 * A cancelled job gives CancelledError.
 */
export async function callEndpoint(
  url: string,
  init: RequestInit,
  opts: { what: string; apiKey: string | undefined; signal: AbortSignal; timeoutMs: number },
): Promise<unknown> {
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const scrub = (text: string) => (opts.apiKey !== undefined && opts.apiKey !== '' ? text.split(opts.apiKey).join('***') : text);
  let res: Response;
  try {
    res = await fetch(url, {
      ...init,
      headers: { accept: 'application/json', ...authHeader(opts.apiKey), ...(init.headers as Record<string, string> | undefined) },
      signal: AbortSignal.any([opts.signal, timeout]),
    });
  } catch (err) {
    throw networkError(err, opts.what, opts.signal, timeout, opts.timeoutMs);
  }
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    throw networkError(err, opts.what, opts.signal, timeout, opts.timeoutMs);
  }
  if (!res.ok) {
    const message = scrub(endpointMessage(text) ?? res.statusText).slice(0, 300);
    const retryable = res.status >= 500 || res.status === 408 || res.status === 429;
    throw new StageError(`${opts.what} answered ${res.status}${message === '' ? '' : `: ${message}`}`, { retryable });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new StageError(`${opts.what} answered with something that is not JSON`, { retryable: true, cause: err });
  }
}

function networkError(err: unknown, what: string, cancel: AbortSignal, timeout: AbortSignal, timeoutMs: number): Error {
  if (cancel.aborted) return new CancelledError();
  if (timeout.aborted)
    return new StageError(`${what} did not answer within ${Math.round(timeoutMs / 1000)} s`, { retryable: true, cause: err });
  const code = errorCode(err);
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH') {
    return new StageError(`${what} is unreachable (${code})`, { retryable: true, dependencyMissing: true, cause: err });
  }
  return new StageError(`${what} failed: ${code ?? (err as Error).message}`, { retryable: true, cause: err });
}

/** undici wraps the socket error: TypeError('fetch failed') with cause { code }, sometimes an AggregateError of them. */
function errorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e !== undefined && e !== null; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR_SOCKET') return code;
    const inner = (e as { errors?: unknown[] }).errors;
    if (Array.isArray(inner) && inner.length > 0) e = inner[0];
    else e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The error text of an OpenAI-style body ({error: {message}} or {error: "…"} or {detail: …}), else the start of the body. */
function endpointMessage(text: string): string | undefined {
  try {
    const doc = JSON.parse(text) as { error?: unknown; detail?: unknown; message?: unknown };
    const error = doc.error;
    if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string')
      return (error as { message: string }).message;
    if (typeof error === 'string') return error;
    if (typeof doc.detail === 'string') return doc.detail;
    if (typeof doc.message === 'string') return doc.message;
  } catch {
    // not JSON
  }
  const plain = text.replace(/\s+/g, ' ').trim();
  return plain === '' ? undefined : plain.slice(0, 200);
}
