/**
 * How a poll of a state (GET /v1/recording, GET /v1/jobs/{id}) ended, and what
 * a check does when its time budget ran out (decision 081).
 *
 * A check polls with a fixed budget (10 s for a recording to start, 3 s for a
 * retried job to leave failed, ...). The spec states no such maximum, so a
 * target that is still in a legitimate intermediate state when the budget runs
 * out (a recording still `starting`, a job still `cancelling`) has violated
 * nothing: it is slow, or the machine is loaded. Only a state the clause rules
 * out (idle with no error after a start, a value outside the enumerated set)
 * is a violation. `settleOf` tells the two apart and `skipWhenStillPending`
 * ends the check SKIPPED, naming the budget and the states seen, so the
 * assertions about what WAS observed are still graded before it.
 */
import type { CheckContext } from './context.ts';

/**
 * - reached: the wanted state;
 * - pending: the budget ran out in a state allowed on the way (a slow target, not a violation);
 * - wrong: the poll ended in a state that is neither wanted nor allowed on the way (graded by the check);
 * - no-answer: the last request got no answer at all (status 0).
 */
export type PollSettle = 'reached' | 'pending' | 'wrong' | 'no-answer';

export interface PollEnd {
  /** The last state read. */
  state: unknown;
  /** The HTTP status of the last read (0: no answer). */
  status: number;
}

/** How a poll that stopped at `end` ended, given the wanted states and the ones allowed on the way. */
export function settleOf(end: PollEnd, want: readonly string[], pending: readonly string[]): PollSettle {
  if (end.status === 0) return 'no-answer';
  const state = typeof end.state === 'string' ? end.state : undefined;
  if (end.status === 200 && state !== undefined && want.includes(state)) return 'reached';
  if (end.status === 200 && state !== undefined && pending.includes(state)) return 'pending';
  return 'wrong';
}

/** The states a poll read, in order, each once per run ("idle → starting"). */
export function describeSeen(seen: readonly unknown[]): string {
  return seen.length === 0 ? '(none)' : seen.map((s) => (typeof s === 'string' ? s : (JSON.stringify(s) ?? 'undefined'))).join(' → ');
}

/** A finished poll: its last state and status, every state it read, what it waited for and its budget. */
export interface Poll extends PollEnd {
  seen: readonly unknown[];
  /** The states it waited for. */
  want: readonly string[];
  /** The states allowed on the way to them (the budget may run out in one of these without a violation). */
  pending: readonly string[];
  budgetMs: number;
}

/** The reason of a SKIPPED check whose budget ran out while `what` was still in a state allowed on the way. */
export function stillPendingReason(what: string, poll: Poll): string {
  return (
    `the suite's time budget (${poll.budgetMs / 1000} s) ran out while ${what} was still ${describeSeen([poll.state])}, ` +
    `not yet ${poll.want.join(' or ')} (states seen ${describeSeen(poll.seen)}): a slow target or a loaded machine, ` +
    'not a violation (the spec states no maximum time for this); the rest cannot be graded'
  );
}

/**
 * Ends the check SKIPPED when the poll's budget ran out in a state allowed on
 * the way (see stillPendingReason); returns otherwise, so the check grades a
 * reached or wrong state as before. Call it after grading what the poll did
 * observe (the fields of the last answer, the states being enumerated): a
 * failure graded before it stays a FAIL (decision 040).
 */
export function skipWhenStillPending(ctx: Pick<CheckContext, 'skip'>, what: string, poll: Poll): void {
  if (settleOf(poll, poll.want, poll.pending) === 'pending') ctx.skip(stillPendingReason(what, poll));
}
