/**
 * Helpers for the wait-stream checks: what a stream did, in one line, and
 * which terminal job state a resolving event names (the event's name and
 * data are a gap, so the state is found by value: a state field, a job.*
 * event name, or the state word in the text).
 */
import type { SseEvent, SseResult } from './sse.ts';

export function describeStream(s: SseResult): string {
  const events = s.events.map((e) => `${e.event ?? '(no name)'}@${e.atMs}ms ${e.data.slice(0, 120)}`).join(' | ');
  return `${s.status} ${s.mediaType || '(no content type)'}; ${s.events.length} event(s)${events === '' ? '' : `: ${events}`}; ${s.closedByServer ? `closed by the server at ${s.endedAtMs} ms` : `still open when the reader stopped (${s.end})`}${s.text === '' ? '' : `; body ${s.text.slice(0, 200)}`}`;
}

export function isTimeoutEvent(e: SseEvent | undefined): boolean {
  return e?.event === 'timeout';
}

const WORDS: Record<string, RegExp> = {
  succeeded: /succeeded|completed/i,
  failed: /failed/i,
  cancelled: /cancel/i,
};

/** The terminal job state an event names, or null when it names none or several. */
export function terminalStateOf(e: SseEvent): 'succeeded' | 'failed' | 'cancelled' | null {
  try {
    const data = JSON.parse(e.data) as { state?: unknown; job?: { state?: unknown }; event?: unknown };
    const state = data.state ?? data.job?.state;
    if (state === 'succeeded' || state === 'failed' || state === 'cancelled') return state;
    if (state === 'completed') return 'succeeded';
  } catch {
    // not JSON: look at the words
  }
  const byName: Record<string, 'succeeded' | 'failed' | 'cancelled'> = {
    'job.completed': 'succeeded',
    'job.failed': 'failed',
    'job.cancelled': 'cancelled',
  };
  if (e.event !== undefined && byName[e.event] !== undefined) return byName[e.event]!;
  const text = `${e.event ?? ''} ${e.data}`;
  const hits = (Object.keys(WORDS) as Array<'succeeded' | 'failed' | 'cancelled'>).filter((k) => WORDS[k]!.test(text));
  return hits.length === 1 ? hits[0]! : null;
}

/** Does the event look like a pause or resume (which must never resolve a job wait)? */
export function isPauseResume(e: SseEvent): boolean {
  return /paus|resum/i.test(`${e.event ?? ''} ${e.data}`) && terminalStateOf(e) === null;
}
