import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { hookTo } from '../../harness/webhooks.ts';

export const check = defineCheck({
  id: 'webhooks/no-replay-after-restart',
  clauses: ['webhooks.delivery.no-replay-after-restart'],
  level: 'requirement',
  needs: ['receiver', 'settings', 'restart', 'webhook-approval', 'jobs', 'meetings', 'tokens'],
  timeoutMs: 60_000,
  description:
    'An approved at-least-once webhook whose receiver always answers 500: a held job finishes, ' +
    'the first attempt arrives, the target restarts (Control API); in the 6 s after the restart ' +
    'no attempt arrives (retries and the undelivered event are dropped).',
  requirement: 'Retries continue only while the application keeps running, and events still undelivered are not replayed after a restart.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const { endpoint } = await hookTo(ctx, api, 'replay', ['job.completed'], { status: 500 });
    const m = await ctx.fixtures.meeting();
    const job = await ctx.control.createJob({ kind: 'diarization', meeting_id: m.id, state: 'running', hold: true });
    await ctx.control.finishJob(job, 'succeeded');
    const first = await endpoint.waitFor(1, 5000);
    if (first.length === 0) return ctx.skip('the first attempt never arrived (webhooks/delivery-basics and events/job-events report it)');
    await ctx.control.restart();
    const at = Date.now();
    const before = endpoint.deliveries.length;
    await ctx.sleep(6000);
    const after = endpoint.deliveries.filter((d) => d.receivedAt > at);
    ctx.expect(
      'webhooks.delivery.no-replay-after-restart',
      'attempts in the 6 s after the restart',
      x.that(after.length === 0, 'none', `${after.length} (${before} before the restart returned)`),
    );
  },
});
