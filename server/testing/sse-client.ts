/**
 * Reads one wait stream the way a strict client would: status, content type,
 * every event parsed with eventsource-parser, and whether the server closed
 * the stream. Used by tests (and the same rules as the conformance suite).
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface SseResult {
  status: number;
  contentType: string;
  events: { event: string; data: unknown }[];
  /** true when the server ended the stream by itself. */
  closedByServer: boolean;
  /** The error envelope, when the answer was not a stream. */
  body?: unknown;
}

export async function readSse(
  url: string,
  headers: Record<string, string>,
  opts: { maxMs?: number; onOpen?: () => void } = {},
): Promise<SseResult> {
  const abort = new AbortController();
  const guard = setTimeout(() => abort.abort(), opts.maxMs ?? 30_000);
  try {
    const res = await fetch(url, { headers, signal: abort.signal });
    const contentType = res.headers.get('content-type') ?? '';
    if (!contentType.startsWith('text/event-stream')) {
      return { status: res.status, contentType, events: [], closedByServer: true, body: await res.json() };
    }
    opts.onOpen?.();
    const events: SseResult['events'] = [];
    const parser = createParser({
      onEvent(message: EventSourceMessage) {
        events.push({ event: message.event ?? 'message', data: JSON.parse(message.data) as unknown });
      },
    });
    const decoder = new TextDecoder();
    let closedByServer = false;
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
      closedByServer = true;
    } catch {
      closedByServer = false; // our own guard fired
    }
    return { status: res.status, contentType, events, closedByServer };
  } finally {
    clearTimeout(guard);
  }
}
