import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { envelopeOf, hookTo } from '../../harness/webhooks.ts';

export const check = defineCheck({
  id: 'webhooks/at-most-once',
  clauses: ['webhooks.delivery.at-most-once.single'],
  level: 'requirement',
  touches: 'own',
  needs: ['receiver', 'settings', 'restart', 'webhook-approval', 'jobs', 'meetings', 'tokens'],
  timeoutMs: 60_000,
  description:
    'An approved at-most-once webhook for job.completed whose receiver answers 500 (and one ' +
    'whose receiver closes the connection): a held job is finished; exactly one attempt arrives ' +
    'in 4 s.',
  requirement: 'In at-most-once mode each delivery gets exactly one attempt and is never retried, even if it fails.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const a = await hookTo(ctx, api, 'amo-500', ['job.completed'], { status: 500 }, { delivery_mode: 'at-most-once' });
    const b = await hookTo(ctx, api, 'amo-reset', ['job.completed'], { action: 'reset' }, { delivery_mode: 'at-most-once' });
    const m = await ctx.fixtures.meeting();
    const job = await ctx.control.createJob({ kind: 'diarization', meeting_id: m.id, state: 'running', hold: true });
    await ctx.control.finishJob(job, 'succeeded');
    await ctx.sleep(4000);
    const seen = (
      [
        ['answers 500', a.endpoint],
        ['closes the connection', b.endpoint],
      ] as const
    ).map(([label, ep]) => ({
      label,
      ds: ep.deliveries.filter((d) => envelopeOf(d)?.event === 'job.completed' && envelopeOf(d)?.resource?.id === job),
    }));
    // No attempt at all is a delivery failure (webhooks/delivery-basics grades it), not a breach of
    // at-most-once; but a second attempt anywhere is graded before any premise is weighed.
    for (const { label, ds } of seen) {
      if (ds.length > 1)
        ctx.expect(
          'webhooks.delivery.at-most-once.single',
          `job.completed attempts in 4 s (receiver ${label})`,
          x.that(
            false,
            'exactly one attempt',
            `${ds.length} attempts at ${ds.map((d) => new Date(d.receivedAt).toISOString().slice(17, 23)).join(', ')}`,
          ),
        );
    }
    if (ctx.attempt.failures.length > 0) return;
    for (const { label, ds } of seen)
      ctx.premise(`a first job.completed attempt within 4 s (receiver ${label})`, x.that(ds.length > 0, 'one attempt', 'none'));
  },
});
