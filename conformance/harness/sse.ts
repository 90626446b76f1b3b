/**
 * A strict reader of the one-event wait streams (API.md, SSE wait streams):
 * fetch + eventsource-parser, keeping every frame with its arrival time, and
 * whether the server closed the stream or the reader gave up. It does not
 * reconnect (an EventSource would, and hide a stream that ends early).
 */
import { createParser, type EventSourceParser } from 'eventsource-parser';
import { curlLine } from './curl.ts';
import type { Exchange, RecordedRequest, RecordedResponse, SseFrame } from './exchange.ts';
import { cut } from './exchange.ts';
import type { HttpClient, RequestOptions } from './http.ts';
import { headersRecord } from './http.ts';

export interface SseEvent {
  /** The event field; undefined when the server sent none (an EventSource would call it 'message'). */
  event: string | undefined;
  data: string;
  id: string | undefined;
  atMs: number;
}

export interface SseResult {
  /** 0 when there was no HTTP answer. */
  status: number;
  headers: Headers;
  /** Media type without parameters, lower case. */
  mediaType: string;
  events: SseEvent[];
  comments: string[];
  /** The body of a non-stream answer (an error envelope). */
  text: string;
  closedByServer: boolean;
  /** 'eof' | 'deadline' | 'closed by client' | 'error: …' */
  end: string;
  endedAtMs: number;
  error: string | undefined;
  exchange: Exchange;
}

export interface SseOptions extends Omit<RequestOptions, 'readBodyMs' | 'timeoutMs'> {
  /** Give up (and close) after this many milliseconds from the request. */
  deadlineMs: number;
  /** Keep reading after the first event until the deadline or EOF (default true: to see extra events). */
  untilClose?: boolean;
  /** After the first event, wait at most this long for the server to close (default 3000 ms). */
  closeGraceMs?: number;
}

export interface SseStream {
  /** Resolves with the first event, or null at the deadline or end of stream. */
  firstEvent(): Promise<SseEvent | null>;
  /** Events so far. */
  readonly events: readonly SseEvent[];
  /** Status once the headers arrived (0 before, or with no answer). */
  status(): number;
  /** Closes the stream from the client side. */
  close(): void;
  /** The whole record, when the stream has ended. */
  done: Promise<SseResult>;
}

export function openSse(client: HttpClient, path: string, options: SseOptions): SseStream {
  const prepared = client.prepare('GET', path, options);
  const { url, init, recorded, curlHeaders } = prepared;
  const headersIn = new Headers(init.headers);
  if (!headersIn.has('accept')) {
    headersIn.set('accept', 'text/event-stream');
    recorded.headers['accept'] = 'text/event-stream';
    curlHeaders['accept'] = 'text/event-stream';
  }
  const controller = new AbortController();
  const log: StreamLog = { started: Date.now(), frames: [], events: [], comments: [] };
  const read: StreamRead = { status: 0, headers: new Headers(), text: '', bytes: 0, closedByServer: false, end: 'eof', error: undefined };
  let closedByClient = false;
  let firstResolve: ((e: SseEvent | null) => void) | undefined;
  const first = new Promise<SseEvent | null>((r) => (firstResolve = r));
  const untilClose = options.untilClose ?? true;
  const grace = options.closeGraceMs ?? 3000;

  const deadline = setTimeout(() => controller.abort('deadline'), options.deadlineMs);
  const parser = streamParser(log, (e) => {
    firstResolve?.(e);
    if (!untilClose) controller.abort('closed by client');
    else {
      // The stream must end now; wait a little for the server to close it.
      clearTimeout(deadline);
      setTimeout(() => controller.abort('deadline'), grace).unref();
    }
  });

  const done = (async (): Promise<SseResult> => {
    try {
      const res = await fetch(url, { ...init, headers: headersIn, signal: controller.signal });
      read.status = res.status;
      read.headers = res.headers;
      await readAnswer(res, parser, read);
    } catch (err) {
      endOnFailure(err, controller.signal, closedByClient, read);
    } finally {
      clearTimeout(deadline);
      firstResolve?.(null);
    }
    return streamResult(client, prepared, options, log, read);
  })();

  return {
    firstEvent: () => first,
    events: log.events,
    status: () => read.status,
    close: () => {
      closedByClient = true;
      controller.abort('closed by client');
    },
    done,
  };
}

/** What a stream brought, in order: the frames for the record, the events and comments for the checks. */
interface StreamLog {
  started: number;
  frames: SseFrame[];
  events: SseEvent[];
  comments: string[];
}

/** The answer as read so far; filled as it arrives, so a stream broken off keeps what came before. */
interface StreamRead {
  /** 0 until the headers arrive (and with no answer). */
  status: number;
  headers: Headers;
  text: string;
  bytes: number;
  closedByServer: boolean;
  end: string;
  error: string | undefined;
}

/** Parses the stream into `log`: every event, comment, retry and parse error is a frame; `onFirst` runs on the first event. */
function streamParser(log: StreamLog, onFirst: (e: SseEvent) => void): EventSourceParser {
  return createParser({
    onEvent: (m) => {
      const atMs = Date.now() - log.started;
      const e: SseEvent = { event: m.event, data: m.data, id: m.id, atMs };
      log.events.push(e);
      log.frames.push({
        atMs,
        kind: 'event',
        ...(m.event === undefined ? {} : { event: m.event }),
        data: m.data,
        ...(m.id === undefined ? {} : { id: m.id }),
      });
      if (log.events.length === 1) onFirst(e);
    },
    onComment: (c) => {
      log.comments.push(c);
      log.frames.push({ atMs: Date.now() - log.started, kind: 'comment', text: c });
    },
    onRetry: (r) => log.frames.push({ atMs: Date.now() - log.started, kind: 'retry', text: String(r) }),
    onError: (e) => log.frames.push({ atMs: Date.now() - log.started, kind: 'parse-error', text: e.message }),
  });
}

/** Reads the body to its end: an event stream through the parser, any other answer (an error envelope) as text. */
async function readAnswer(res: Response, parser: EventSourceParser, read: StreamRead): Promise<void> {
  const mediaType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (res.body === null) {
    read.closedByServer = true;
  } else if (mediaType !== 'text/event-stream') {
    read.text = await res.text();
    read.bytes = Buffer.byteLength(read.text);
    read.closedByServer = true;
  } else {
    const decoder = new TextDecoder();
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      read.bytes += chunk.value.byteLength;
      const piece = decoder.decode(chunk.value, { stream: true });
      read.text += piece;
      parser.feed(piece);
    }
    read.closedByServer = true;
  }
}

/** Why the read stopped early: the deadline, the client closing it, or an error (the server broke the stream off once it had answered). */
function endOnFailure(err: unknown, signal: AbortSignal, closedByClient: boolean, read: StreamRead): void {
  const reason = signal.aborted ? String(signal.reason) : undefined;
  if (reason === 'deadline') read.end = 'deadline';
  else if (reason === 'closed by client' || closedByClient) read.end = 'closed by client';
  else {
    const e = err as { message?: string; cause?: { code?: string; message?: string } };
    read.error = [e.cause?.code, e.cause?.message ?? e.message].filter(Boolean).join(': ');
    read.end = `error: ${read.error}`;
    if (read.status !== 0) read.closedByServer = true; // the server broke the stream off
  }
}

/** Records the exchange (its frames, how it ended, a curl line) and returns the whole read. */
function streamResult(
  client: HttpClient,
  prepared: { url: string; recorded: RecordedRequest; curlHeaders: Record<string, string> },
  options: SseOptions,
  log: StreamLog,
  read: StreamRead,
): SseResult {
  const { status, headers, text, closedByServer, end, error } = read;
  const endedAtMs = Date.now() - log.started;
  let response: RecordedResponse | undefined;
  if (status !== 0) {
    const body = cut(text);
    response = {
      status,
      statusText: '',
      headers: headersRecord(headers),
      body: body.text,
      bodyBytes: read.bytes,
      ...(body.truncated ? { truncated: true } : {}),
    };
  }
  const exchange = client.record({
    channel: client.channel,
    ...(options.label === undefined ? {} : { label: options.label }),
    startedAt: new Date(log.started).toISOString(),
    durationMs: endedAtMs,
    request: prepared.recorded,
    ...(response === undefined ? {} : { response }),
    ...(status === 0 && error !== undefined ? { error } : {}),
    sse: { frames: log.frames, closedByServer, endedAtMs, end },
    curl: curlLine({ method: 'GET', url: client.redact(prepared.url), headers: prepared.curlHeaders, stream: true }),
  });
  return {
    status,
    headers,
    mediaType: (headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase(),
    events: log.events,
    comments: log.comments,
    text,
    closedByServer,
    end,
    endedAtMs,
    error,
    exchange,
  };
}

/** Opens a wait stream and reads it to its end (or the deadline). */
export function readSse(client: HttpClient, path: string, options: SseOptions): Promise<SseResult> {
  return openSse(client, path, options).done;
}
