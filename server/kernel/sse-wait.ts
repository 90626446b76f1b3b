/**
 * The one SSE wait of the API (jobs, summary operations, recording): open the
 * one-event stream, listen to the event bus, and answer with the first
 * outcome the resource reaches, or the timeout event. Each wait says only
 * which bus events may end it and what the outcome is in the state as it is
 * now; the subscribe/settle/unsubscribe sequence lives here once.
 *
 * The order is fixed: the stream opens, the bus subscription starts, then the
 * current state is read once (trigger null). A state reached before the
 * subscription is seen by that read; one reached after it is seen by the
 * bus; no end falls between the two.
 */
import type { Response } from 'express';
import { openWaitStream } from './http/sse.ts';

export interface WaitOutcome {
  event: string;
  data: unknown;
}

export interface BusWaitOptions<E> {
  res: Response;
  /** The event bus (events.ts EventBus.subscribe, or anything with its shape). */
  bus: { subscribe(listener: (event: E) => void): () => void };
  timeoutMs: number;
  /** Data of the timeout event. */
  timeoutData: unknown;
  /**
   * The outcome to send now, or null to keep waiting. `trigger` is the bus
   * event that woke the wait, or null for the read of the state at the start.
   */
  settle(trigger: E | null): WaitOutcome | null;
}

/** Streams the wait and returns the reply that tells the router the handler answered itself. */
export function waitOnBus<E>(opts: BusWaitOptions<E>): { streamed: true } {
  let unsubscribe = (): void => undefined;
  const stream = openWaitStream(opts.res, {
    timeoutMs: opts.timeoutMs,
    timeoutData: opts.timeoutData,
    onClose: () => unsubscribe(),
  });
  const attempt = (trigger: E | null): void => {
    if (!stream.open) return;
    const outcome = opts.settle(trigger);
    if (outcome !== null) stream.resolve(outcome.event, outcome.data);
  };
  const off = opts.bus.subscribe((event) => attempt(event));
  // The stream may have closed already (the client left before we subscribed).
  if (stream.open) unsubscribe = off;
  else off();
  attempt(null);
  return { streamed: true };
}
