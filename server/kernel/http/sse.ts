/**
 * The one-event wait stream of API.md's "SSE wait streams": a plain
 * text/event-stream that emits exactly one event and closes. On timeout it
 * emits a single event named `timeout` (never an HTTP error). Every wait is
 * capped at one hour. While waiting, a comment line every 15 s keeps proxies
 * and idle-timeouts from cutting the stream.
 *
 * Field values never carry CR or LF (they would start a new field), so event
 * names are checked and data is one line of JSON.
 */
import type { Response } from 'express';

const WAIT_CAP_MS = 3_600_000;
const HEARTBEAT_MS = 15_000;

export interface WaitStream {
  /** Sends the one event and closes. Later calls do nothing. */
  resolve(event: string, data: unknown): void;
  /** Whether the stream is still open (not resolved, client still there). */
  readonly open: boolean;
}

export interface WaitOptions {
  timeoutMs: number;
  /** Data of the timeout event. */
  timeoutData: unknown;
  /** Called once when the stream ends for any reason: cleanup of subscriptions. */
  onClose: () => void;
}

export function openWaitStream(res: Response, opts: WaitOptions): WaitStream {
  const timeoutMs = Math.min(Math.max(0, opts.timeoutMs), WAIT_CAP_MS);
  res.statusCode = 200;
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
  res.write(': waiting\n\n');

  let open = true;
  const heartbeat = setInterval(() => {
    if (open) res.write(': keep-alive\n\n');
  }, HEARTBEAT_MS);
  heartbeat.unref();
  const timer = setTimeout(() => stream.resolve('timeout', opts.timeoutData), timeoutMs);
  timer.unref();

  const finish = () => {
    if (!open) return;
    open = false;
    clearInterval(heartbeat);
    clearTimeout(timer);
    opts.onClose();
  };
  res.on('close', finish);

  const stream: WaitStream = {
    resolve(event, data) {
      if (!open) return;
      if (/[\r\n]/.test(event)) throw new Error('an SSE event name cannot hold CR or LF');
      const line = JSON.stringify(data); // JSON.stringify escapes CR and LF inside strings
      finish();
      res.end(`event: ${event}\ndata: ${line}\n\n`);
    },
    get open() {
      return open;
    },
  };
  return stream;
}
