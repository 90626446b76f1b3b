import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import type { Reply } from '../../harness/receiver.ts';
import { envelopeOf, hookTo, reasonsIn } from '../../harness/webhooks.ts';

export const check = defineCheck({
  id: 'webhooks/test-single-attempt',
  clauses: [
    'webhooks.test.single-attempt',
    'webhooks.delivery.reason.handler_error',
    'webhooks.delivery.reason.third_party_rejected',
    'webhooks.delivery.reason.delivery_failed',
  ],
  level: 'requirement',
  touches: 'own',
  needs: ['receiver', 'settings', 'restart', 'webhook-approval', 'tokens'],
  timeoutMs: 60_000,
  description:
    'Three approved webhooks whose receiver answers 500, 400 and closes the connection: POST ' +
    '…/test sends exactly one webhook.test POST each (nothing more in 3.5 s, beyond the first ' +
    'retry wait), and the delivery logs record handler_error, third_party_rejected and ' +
    'delivery_failed.',
  requirement: 'The test route sends one synthetic delivery of event webhook.test with a single attempt that is never retried.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    const cases: Array<[string, Reply, string]> = [
      ['answers 500', { status: 500, body: 'handler crashed' }, 'webhooks.delivery.reason.handler_error'],
      ['answers 400', { status: 400, body: 'rejected' }, 'webhooks.delivery.reason.third_party_rejected'],
      ['closes the connection', { action: 'reset' }, 'webhooks.delivery.reason.delivery_failed'],
    ];
    const hooks = [];
    for (const [label, reply, clause] of cases) {
      const h = await hookTo(ctx, api, label, ['job.completed'], reply);
      // Subscribed to job.completed only because a registration needs an event: the jobs of checks run beside
      // this one complete meanwhile, and their deliveries are set aside, not counted as attempts of the test.
      h.endpoint.only((d) => envelopeOf(d)?.event !== 'job.completed');
      const t = await api.post(`/v1/webhooks/${h.hook.id}/test`);
      ctx.expect('webhooks.test.single-attempt', `POST /v1/webhooks/{id}/test (receiver ${label})`, x.status(t, 202), t);
      hooks.push({ ...h, label, clause });
    }
    // Nothing more may come in 3.5 s (beyond the first retry wait) after each test delivery was answered:
    // the first delivery may queue behind others at a target whose receivers answer slowly (decision 073).
    for (const { endpoint } of hooks) await endpoint.answered(1, 15_000);
    await ctx.sleep(3500);
    for (const { endpoint, hook, label, clause } of hooks) {
      const ds = endpoint.deliveries;
      ctx.expect(
        'webhooks.test.single-attempt',
        `deliveries of the test (receiver ${label}) until 3.5 s after the first was answered`,
        x.that(
          ds.length === 1 && envelopeOf(ds[0]!)?.event === 'webhook.test',
          'exactly one webhook.test delivery',
          `${ds.length}: ${ds.map((d) => d.body.slice(0, 80)).join(' | ')}`,
        ),
      );
      const log = await api.get(`/v1/webhooks/${hook.id}/deliveries`);
      const reasons = reasonsIn(log.body);
      const want = clause.split('.').pop()!;
      ctx.expect(
        clause,
        `GET /v1/webhooks/{id}/deliveries (receiver ${label})`,
        x.that(log.status === 200 && reasons.includes(want), `an entry with reason ${want}`, log.describe(300)),
        log,
      );
    }
  },
});
