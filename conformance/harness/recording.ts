/**
 * The recorder as the recording checks drive it: its states on the way to a
 * wanted one, a poll of GET /v1/recording until one is reached, and the wait
 * for idle every check does before it starts a recording of its own.
 */
import type { BoundClient } from './context-types.ts';
import type { CheckContext } from './context.ts';
import type { HttpResult } from './http.ts';
import { skipWhenStillPending, type Poll } from './polling.ts';

/**
 * The recording states allowed on the way to a wanted one: after a start the
 * recording may still be starting, after a stop still stopping. A poll whose
 * budget runs out in one of these is a slow target, not a violation
 * (harness/polling.ts, decision 081); any other state is graded.
 */
const RECORDING_ON_THE_WAY: Readonly<Record<string, readonly string[]>> = {
  recording: ['starting'],
  idle: ['stopping'],
};

/**
 * Polls GET /v1/recording until the state is one of `want` (or the time runs
 * out, or no answer comes). `pending` is filled from RECORDING_ON_THE_WAY.
 */
export async function pollRecording(api: BoundClient, want: string[], timeoutMs = 10_000): Promise<Poll & { res: HttpResult }> {
  const until = Date.now() + timeoutMs;
  const seen: unknown[] = [];
  const pending = want.flatMap((w) => RECORDING_ON_THE_WAY[w] ?? []);
  for (;;) {
    const res = await api.get('/v1/recording', { label: `poll the recording state (until ${want.join('|')})` });
    const state = (res.body as { state?: unknown } | undefined)?.state;
    if (seen.at(-1) !== state) seen.push(state);
    if (want.includes(String(state)) || Date.now() > until || res.status === 0)
      return { res, state, status: res.status, seen, want, pending, budgetMs: timeoutMs };
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Waits, before a check starts a recording of its own, until the recorder is
 * idle: the check before it may have left it stopping (a clean-up stop does
 * not wait for idle) or, having run out of time, still recording; a recording
 * left running is stopped. A recorder still stopping when the budget runs out
 * SKIPs the check (decision 081): its start would not be made from idle, so a
 * refusal would say nothing about its clause (decision 121). Any other state
 * is left to the check to grade.
 */
export async function fromIdle(ctx: Pick<CheckContext, 'skip'>, api: BoundClient, budgetMs = 30_000): Promise<void> {
  let poll = await pollRecording(api, ['idle'], budgetMs);
  if (poll.status === 200 && ['starting', 'recording', 'paused'].includes(String(poll.state))) {
    await api.post('/v1/recording/stop', { label: 'stop a recording an earlier check left running' });
    poll = await pollRecording(api, ['idle'], budgetMs);
  }
  skipWhenStillPending(ctx, 'the recording an earlier check stopped', poll);
}
