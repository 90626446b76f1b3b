import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { envelopeOf, hookTo } from '../../harness/webhooks.ts';

/** The first three waits of the at-least-once schedule (API.md: 1, 2, 4, 8 and 16 s). */
const WAITS = [1, 2, 4];
/** The tolerance the slow check allows on a wait: ±0.6 s, or 25 %, whichever is larger. */
const tolerance = (wait: number): number => Math.max(0.6, wait * 0.25);

export const check = defineCheck({
  id: 'webhooks/retry-schedule-start',
  clauses: ['webhooks.delivery.retry.backoff'],
  level: 'requirement',
  touches: 'own',
  needs: ['receiver', 'settings', 'restart', 'webhook-approval', 'jobs', 'meetings', 'tokens'],
  timeoutMs: 60_000,
  description:
    'The start of the at-least-once schedule, in the default run: a receiver that always ' +
    'answers 500 gets a 4th attempt, and the first three gaps are about 1, 2 and 4 s (±0.6 s, ' +
    'or 25 %); the whole schedule and its exhaustion are webhooks/retry-schedule (--slow).',
  requirement: 'In at-least-once mode the waits between consecutive attempts are 1, 2, 4, 8 and 16 seconds.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const { endpoint } = await hookTo(ctx, api, 'retry-start', ['job.completed'], { status: 500 });
    const m = await ctx.fixtures.meeting();
    const job = await ctx.control.createJob({ kind: 'diarization', meeting_id: m.id, state: 'running', hold: true });
    await ctx.control.finishJob(job, 'succeeded');
    const attempts = (): typeof endpoint.deliveries =>
      endpoint.deliveries.filter((d) => envelopeOf(d)?.event === 'job.completed' && envelopeOf(d)?.resource?.id === job);
    // The first attempt: no timing is asserted on it (the finish → delivery latency is the target's own).
    await endpoint.waitFor(1, 15_000);
    const first = attempts()[0];
    if (first === undefined)
      return ctx.skip(
        'no job.completed delivery arrived within 15 s, so the retry schedule cannot be observed ' +
          '(webhooks/delivery-basics grades the delivery itself)',
      );
    // A wait runs from the end of an attempt, which is when the receiver answered it (at once here,
    // unless the receiver is a slow one: the self-test's slow-receiver variant, decision 073).
    await endpoint.answered(1, 15_000);
    const answerDelayMs = (first.answeredAt ?? first.receivedAt) - first.receivedAt;
    // The 4th attempt is due 1 + 2 + 4 = 7 s after the first ends; wait as long as the tolerance of every gap allows, and 2 s more.
    const latest = WAITS.reduce((sum, w) => sum + w + tolerance(w), 0) + 2 + (3 * answerDelayMs) / 1000;
    const until = first.receivedAt + answerDelayMs + latest * 1000;
    while (attempts().length < 4 && Date.now() < until)
      await endpoint.waitFor(endpoint.deliveries.length + 1, Math.max(1, until - Date.now()));
    const ds = attempts().slice(0, 4);
    await endpoint.answered(endpoint.deliveries.indexOf(ds.at(-1)!) + 1, 15_000);
    const gaps = ds.slice(1).map((d, i) => (d.receivedAt - (ds[i]!.answeredAt ?? ds[i]!.receivedAt)) / 1000);
    const shown = gaps.map((g) => `${g.toFixed(2)} s`).join(', ') || 'none';
    // The premise of timing a late retry: the receiver answered at once. Behind a receiver that answers
    // late, the target's deliveries to it queue (the suite's receiver serves every check's webhooks), so
    // a late or missing retry is not the schedule's fault; an early one always is.
    const prompt = ds.every((d) => d.answeredAt === undefined || d.answeredAt - d.receivedAt < 500);
    const early = gaps.some((g, i) => g < WAITS[i]! - tolerance(WAITS[i]!));
    if (!prompt && !early && (ds.length < 4 || !gaps.every((g, i) => g <= WAITS[i]! + tolerance(WAITS[i]!))))
      return ctx.skip(
        `premise not met: the receiver answered the attempts late (the first ${(answerDelayMs / 1000).toFixed(1)} s after it arrived), so ` +
          `the target's deliveries to it queued: ${ds.length} attempt(s), gaps ${shown} from each answer; none early`,
      );
    ctx.expect(
      'webhooks.delivery.retry.backoff',
      'attempts of a delivery that always gets 500, within 7 s (+ tolerance) of the first',
      x.that(
        ds.length === 4,
        'at least 4 attempts (waits of 1, 2 and 4 s between them)',
        `${attempts().length} attempt(s) within ${latest.toFixed(1)} s of the first (gaps ${shown})`,
      ),
    );
    const ok = gaps.every((g, i) => Math.abs(g - WAITS[i]!) <= tolerance(WAITS[i]!));
    ctx.expect(
      'webhooks.delivery.retry.backoff',
      'the first gaps between attempts, each from the answer to the attempt before',
      x.that(ok, 'about 1, 2, 4 s (±0.6 s, or 25 %)', shown),
    );
  },
});
