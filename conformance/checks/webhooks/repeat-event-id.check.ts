import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { envelopeOf, hookTo } from '../../harness/webhooks.ts';

export const check = defineCheck({
  id: 'webhooks/repeat-event-id',
  clauses: ['webhooks.delivery.repeat-event-id', 'webhooks.delivery.2xx-accepted'],
  level: 'requirement',
  touches: 'own',
  needs: ['receiver', 'settings', 'restart', 'webhook-approval', 'jobs', 'meetings', 'tokens'],
  timeoutMs: 60_000,
  description:
    'An approved at-least-once webhook whose receiver answers 500 once, then 204: a held job ' +
    'finishes; the retry carries the same event_id as the first attempt, and after the 204 ' +
    'nothing more arrives (4 s).',
  requirement: 'Duplicate deliveries of the same event carry the same event_id, the key receivers use to ignore repeats.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const { endpoint } = await hookTo(ctx, api, 'repeat', ['job.completed'], [{ status: 500 }, { status: 204 }]);
    const m = await ctx.fixtures.meeting();
    const job = await ctx.control.createJob({ kind: 'diarization', meeting_id: m.id, state: 'running', hold: true });
    // Only this job's deliveries take the replies and count (the jobs of checks run beside this one are reported too).
    endpoint.only((d) => envelopeOf(d)?.resource?.id === job);
    endpoint.reply([{ status: 500 }, { status: 204 }]);
    await ctx.control.finishJob(job, 'succeeded');
    const ds = await endpoint.waitFor(2, 8000);
    // The retry itself is graded by webhooks/retry-schedule-start; here it is the premise.
    ctx.premise('attempts after a 500 (8 s)', x.that(ds.length >= 2, 'a retry', `${ds.length} attempts`));
    const ids = ds.map((d) => envelopeOf(d)?.event_id);
    ctx.expect(
      'webhooks.delivery.repeat-event-id',
      'event_id of the first attempt and the retry',
      x.that(typeof ids[0] === 'string' && ids[0] === ids[1], 'the same event_id', ids.map((i) => x.show(i)).join(' vs ')),
    );
    const all = await endpoint.quiet(4000, 6000);
    ctx.expect(
      'webhooks.delivery.2xx-accepted',
      'attempts after the 204',
      x.that(all.length === 2, 'none (2 in all)', `${all.length} in all`),
    );
  },
});
