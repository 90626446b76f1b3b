import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { allowReceiver, logEntries, registerWebhook } from '../../harness/webhooks.ts';

export const check = defineCheck({
  id: 'webhooks/pending-silent',
  clauses: ['webhooks.delivery.pending-silent', 'webhooks.test.egress-consent'],
  level: 'requirement',
  touches: 'own',
  needs: ['receiver', 'settings', 'restart', 'jobs', 'meetings', 'tokens'],
  timeoutMs: 60_000,
  description:
    'A webhook to the allowlisted receiver left pending: a held job finishes and POST …/test is ' +
    'called; in 3 s nothing arrives and the delivery log is empty (the test route’s answer is ' +
    'recorded, not judged).',
  requirement: 'A pending webhook is delivered nothing, and this raises no error and writes no delivery-log entry.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const endpoint = await ctx.endpoint('pending');
    await allowReceiver(ctx, endpoint);
    const hook = await registerWebhook(api, endpoint, ['job.completed']);
    if ('refused' in hook) return ctx.skip(`the webhook to the receiver could not be registered: ${hook.refused.describe(150)}`);
    const m = await ctx.fixtures.meeting();
    const job = await ctx.control.createJob({ kind: 'diarization', meeting_id: m.id, state: 'running', hold: true });
    await ctx.control.finishJob(job, 'succeeded');
    const t = await api.post(`/v1/webhooks/${hook.id}/test`);
    ctx.note(`POST …/test on the pending webhook answered ${t.status}`);
    await ctx.sleep(3000);
    ctx.expect(
      'webhooks.delivery.pending-silent',
      'deliveries to a pending webhook (job.completed) in 3 s',
      x.that(endpoint.deliveries.filter((d) => !d.body.includes('webhook.test')).length === 0, 'none', `${endpoint.deliveries.length}`),
    );
    ctx.expect(
      'webhooks.test.egress-consent',
      'test deliveries to a pending webhook in 3 s',
      x.that(
        endpoint.deliveries.length === 0,
        'none',
        `${endpoint.deliveries.length}: ${endpoint.deliveries.map((d) => d.body.slice(0, 80)).join(' | ')}`,
      ),
    );
    const log = await api.get(`/v1/webhooks/${hook.id}/deliveries`);
    const entries = logEntries(log.body);
    ctx.expect(
      'webhooks.delivery.pending-silent',
      'GET /v1/webhooks/{id}/deliveries of the pending webhook',
      x.that(log.status === 200 && entries !== null && entries.length === 0, '200 with no entry', log.describe(300)),
      log,
    );
  },
});
