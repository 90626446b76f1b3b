/**
 * What the suite saw on the wire: every request with its response (or
 * transport error), SSE frames and webhook deliveries. Reports carry these so
 * a failure can be understood, and replayed with its curl line, without
 * running the suite again.
 */

/** Bodies above this are cut in reports (their full size is kept). */
const BODY_LIMIT = 64 * 1024;

export type Channel = 'api' | 'control' | 'probe';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** UTF-8 text of the body, cut at BODY_LIMIT; binary bodies are described, not copied. */
  body?: string;
  bodyBytes?: number;
}

export interface RecordedResponse {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  body: string;
  bodyBytes: number;
  truncated?: boolean;
}

export interface SseFrame {
  /** Milliseconds since the request was sent. */
  atMs: number;
  kind: 'event' | 'comment' | 'retry' | 'parse-error';
  event?: string;
  data?: string;
  id?: string;
  text?: string;
}

interface SseRecord {
  frames: SseFrame[];
  /** The server ended the stream (as opposed to the reader giving up). */
  closedByServer: boolean;
  /** Milliseconds from the request to the end of the stream (or to the reader giving up). */
  endedAtMs: number;
  /** Why the reader stopped: 'eof', 'deadline', 'aborted', 'error: ...'. */
  end: string;
}

export interface Exchange {
  /** Order within the check (1-based). */
  seq: number;
  channel: Channel;
  label?: string;
  startedAt: string;
  durationMs: number;
  request: RecordedRequest;
  response?: RecordedResponse;
  /** Transport failure: refused, reset, timeout... */
  error?: string;
  sse?: SseRecord;
  curl: string;
  notes?: string[];
  /** The clauses whose expectation failed on this exchange (its response is what their verdict rests on). */
  failed?: string[];
}

export interface Delivery {
  seq: number;
  /** Epoch milliseconds when the request was complete. */
  receivedAt: number;
  endpoint: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The raw body, base64 (the signature is over these exact bytes). */
  bodyBase64: string;
  /** The body as UTF-8 text (cut at BODY_LIMIT). */
  body: string;
  /** What the receiver answered: a status, 'reset' or 'hang'. */
  answered: string;
  /**
   * Epoch milliseconds when the answer went out (absent while none has): a receiver that answers
   * late (a slow handler) ends the attempt later than it arrived, and a target's retry waits and
   * delivery log start from there.
   */
  answeredAt?: number;
}

export function cut(text: string): { text: string; truncated: boolean } {
  if (text.length <= BODY_LIMIT) return { text, truncated: false };
  return { text: `${text.slice(0, BODY_LIMIT)}… [${text.length - BODY_LIMIT} more characters]`, truncated: true };
}
