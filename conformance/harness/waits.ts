/**
 * Helpers for the wait-stream checks: what a stream did, in one line, and
 * which terminal job state a resolving event names (the event's name and
 * data are a gap, so the state is found by value: a state field, a job.*
 * event name, or the state word in the text).
 */
import type { CheckContext } from './context.ts';
import { JOB_STATES, JOB_TERMINAL_STATES } from '../spec/constants.ts';
import type { JobDto } from './jobs.ts';
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

/**
 * Did the suite's reader give up on a job wait before the target had anything
 * to say? No event, the stream not closed by the server (the reader's
 * deadline ended it, or no answer came), and the job still in a state that
 * is not terminal: the wait has rightly not resolved yet. Only a wait whose
 * own timeout parameter is longer than the reader's deadline can end so.
 */
export function jobWaitOutlasted(s: SseResult, job: JobDto): boolean {
  const state = typeof job.state === 'string' ? job.state : undefined;
  const unfinished =
    state !== undefined && (JOB_STATES as readonly string[]).includes(state) && !(JOB_TERMINAL_STATES as readonly string[]).includes(state);
  return s.events.length === 0 && !s.closedByServer && unfinished;
}

/**
 * Ends the check SKIPPED when jobWaitOutlasted: the suite's time budget for
 * the wait ran out while the job was still (say) running or cancelling, which
 * is a slow target or a loaded machine, not a wait that failed to resolve
 * (decision 081). Call it after grading what was observed before the end.
 */
export function skipWhenJobWaitOutlasted(ctx: Pick<CheckContext, 'skip'>, what: string, s: SseResult, job: JobDto): void {
  if (jobWaitOutlasted(s, job))
    ctx.skip(
      `the suite's time budget for ${what} ran out before the job ended (it is still ${String(job.state)}): ${describeStream(s)}; ` +
        'a slow target or a loaded machine, not a wait that failed to resolve',
    );
}
