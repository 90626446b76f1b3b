import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { envelopeOf, hookTo, reasonsIn } from '../../harness/webhooks.ts';

const WAITS = [1, 2, 4, 8, 16];

export const check = defineCheck({
  id: 'webhooks/retry-schedule',
  clauses: [
    'webhooks.delivery.retry.max-6',
    'webhooks.delivery.retry.backoff',
    'webhooks.delivery.reason.exhausted',
    'health.deliveries-failed.exhausted',
  ],
  level: 'requirement',
  needs: ['slow', 'receiver', 'settings', 'restart', 'webhook-approval', 'jobs', 'meetings', 'tokens'],
  timeoutMs: 120_000,
  description:
    'An approved at-least-once webhook whose receiver always answers 500: a held job finishes; ' +
    'exactly 6 attempts arrive with gaps of about 1, 2, 4, 8 and 16 s (±0.6 s, or 25%), nothing ' +
    'more for 10 s, the log records exhausted, and /health webhooks.deliveries_failed rose by ' +
    'one.',
  requirement: 'In at-least-once mode a delivery that keeps failing is attempted at most 6 times in total.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const h0 = await ctx.api.get('/health');
    const failed0 = (h0.body as { webhooks?: { deliveries_failed?: unknown } } | undefined)?.webhooks?.deliveries_failed;
    const { endpoint, hook } = await hookTo(ctx, api, 'retry', ['job.completed'], { status: 500 });
    const m = await ctx.fixtures.meeting();
    const job = await ctx.control.createJob({ kind: 'diarization', meeting_id: m.id, state: 'running', hold: true });
    await ctx.control.finishJob(job, 'succeeded');
    await endpoint.waitFor(6, 45_000);
    const ds = (await endpoint.quiet(10_000, 20_000)).filter((d) => envelopeOf(d)?.event === 'job.completed');
    ctx.expect(
      'webhooks.delivery.retry.max-6',
      'attempts of a delivery that always gets 500',
      x.that(ds.length === 6, 'exactly 6', `${ds.length}`),
    );
    const gaps = ds.slice(1).map((d, i) => (d.receivedAt - ds[i]!.receivedAt) / 1000);
    const ok = gaps.length === WAITS.length && gaps.every((g, i) => Math.abs(g - WAITS[i]!) <= Math.max(0.6, WAITS[i]! * 0.25));
    ctx.expect(
      'webhooks.delivery.retry.backoff',
      'gaps between attempts',
      x.that(ok, 'about 1, 2, 4, 8, 16 s', gaps.map((g) => `${g.toFixed(2)} s`).join(', ')),
    );
    const log = await api.get(`/v1/webhooks/${hook.id}/deliveries`);
    ctx.expect(
      'webhooks.delivery.reason.exhausted',
      'GET /v1/webhooks/{id}/deliveries after the last attempt',
      x.that(reasonsIn(log.body).includes('exhausted'), 'an entry with reason exhausted', log.describe(400)),
      log,
    );
    const h1 = await ctx.api.get('/health');
    const failed1 = (h1.body as { webhooks?: { deliveries_failed?: unknown } } | undefined)?.webhooks?.deliveries_failed;
    ctx.expect(
      'health.deliveries-failed.exhausted',
      '/health webhooks.deliveries_failed before and after',
      x.that(typeof failed0 === 'number' && failed1 === failed0 + 1, 'one more', `${x.show(failed0)} → ${x.show(failed1)}`),
      h1,
    );
  },
});
