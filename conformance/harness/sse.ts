/**
 * A strict reader of the one-event wait streams (API.md, SSE wait streams):
 * fetch + eventsource-parser, keeping every frame with its arrival time, and
 * whether the server closed the stream or the reader gave up. It does not
 * reconnect (an EventSource would, and hide a stream that ends early).
 */
import { createParser } from 'eventsource-parser';
import { curlLine } from './curl.ts';
import type { Exchange, RecordedResponse, SseFrame } from './exchange.ts';
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
  const { url, init, recorded, curlHeaders } = client.prepare('GET', path, options);
  const headersIn = new Headers(init.headers);
  if (!headersIn.has('accept')) {
    headersIn.set('accept', 'text/event-stream');
    recorded.headers['accept'] = 'text/event-stream';
    curlHeaders['accept'] = 'text/event-stream';
  }
  const controller = new AbortController();
  const started = Date.now();
  const frames: SseFrame[] = [];
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let status = 0;
  let closedByClient = false;
  let firstResolve: ((e: SseEvent | null) => void) | undefined;
  const first = new Promise<SseEvent | null>((r) => (firstResolve = r));
  const untilClose = options.untilClose ?? true;
  const grace = options.closeGraceMs ?? 3000;

  const deadline = setTimeout(() => controller.abort('deadline'), options.deadlineMs);

  const done = (async (): Promise<SseResult> => {
    let headers = new Headers();
    let text = '';
    let end = 'eof';
    let error: string | undefined;
    let closedByServer = false;
    let bytes = 0;
    try {
      const res = await fetch(url, { ...init, headers: headersIn, signal: controller.signal });
      status = res.status;
      headers = res.headers;
      const mediaType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      if (res.body === null) {
        closedByServer = true;
      } else if (mediaType !== 'text/event-stream') {
        text = await res.text();
        bytes = Buffer.byteLength(text);
        closedByServer = true;
      } else {
        const parser = createParser({
          onEvent: (m) => {
            const atMs = Date.now() - started;
            const e: SseEvent = { event: m.event, data: m.data, id: m.id, atMs };
            events.push(e);
            frames.push({
              atMs,
              kind: 'event',
              ...(m.event === undefined ? {} : { event: m.event }),
              data: m.data,
              ...(m.id === undefined ? {} : { id: m.id }),
            });
            if (events.length === 1) {
              firstResolve?.(e);
              if (!untilClose) controller.abort('closed by client');
              else {
                // The stream must end now; wait a little for the server to close it.
                clearTimeout(deadline);
                setTimeout(() => controller.abort('deadline'), grace).unref();
              }
            }
          },
          onComment: (c) => {
            comments.push(c);
            frames.push({ atMs: Date.now() - started, kind: 'comment', text: c });
          },
          onRetry: (r) => frames.push({ atMs: Date.now() - started, kind: 'retry', text: String(r) }),
          onError: (e) => frames.push({ atMs: Date.now() - started, kind: 'parse-error', text: e.message }),
        });
        const decoder = new TextDecoder();
        const reader = (res.body as ReadableStream<Uint8Array>).getReader();
        for (;;) {
          const chunk = await reader.read();
          if (chunk.done) break;
          bytes += chunk.value.byteLength;
          const piece = decoder.decode(chunk.value, { stream: true });
          text += piece;
          parser.feed(piece);
        }
        closedByServer = true;
      }
    } catch (err) {
      const reason = controller.signal.aborted ? String(controller.signal.reason) : undefined;
      if (reason === 'deadline') end = 'deadline';
      else if (reason === 'closed by client' || closedByClient) end = 'closed by client';
      else {
        const e = err as { message?: string; cause?: { code?: string; message?: string } };
        error = [e.cause?.code, e.cause?.message ?? e.message].filter(Boolean).join(': ');
        end = `error: ${error}`;
        if (status !== 0) closedByServer = true; // the server broke the stream off
      }
    } finally {
      clearTimeout(deadline);
      firstResolve?.(null);
    }
    const endedAtMs = Date.now() - started;
    let response: RecordedResponse | undefined;
    if (status !== 0) {
      const body = cut(text);
      response = {
        status,
        statusText: '',
        headers: headersRecord(headers),
        body: body.text,
        bodyBytes: bytes,
        ...(body.truncated ? { truncated: true } : {}),
      };
    }
    const exchange = client.record({
      channel: client.channel,
      ...(options.label === undefined ? {} : { label: options.label }),
      startedAt: new Date(started).toISOString(),
      durationMs: endedAtMs,
      request: recorded,
      ...(response === undefined ? {} : { response }),
      ...(status === 0 && error !== undefined ? { error } : {}),
      sse: { frames, closedByServer, endedAtMs, end },
      curl: curlLine({ method: 'GET', url: client.redact(url), headers: curlHeaders, stream: true }),
    });
    return {
      status,
      headers,
      mediaType: (headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase(),
      events,
      comments,
      text,
      closedByServer,
      end,
      endedAtMs,
      error,
      exchange,
    };
  })();

  return {
    firstEvent: () => first,
    events,
    status: () => status,
    close: () => {
      closedByClient = true;
      controller.abort('closed by client');
    },
    done,
  };
}

/** Opens a wait stream and reads it to its end (or the deadline). */
export function readSse(client: HttpClient, path: string, options: SseOptions): Promise<SseResult> {
  return openSse(client, path, options).done;
}
