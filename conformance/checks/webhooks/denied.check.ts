import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { hookTo, reasonsIn } from '../../harness/webhooks.ts';

export const check = defineCheck({
  id: 'webhooks/denied',
  clauses: ['webhooks.approval.deny', 'webhooks.delivery.reason.denied', 'webhooks.test.egress-consent'],
  level: 'requirement',
  needs: ['receiver', 'settings', 'restart', 'webhook-approval', 'jobs', 'meetings', 'tokens'],
  timeoutMs: 60_000,
  description:
    'An approved webhook to the receiver is denied through the Control API while the Automation ' +
    'API is switched off; switched on again, GET shows denied; a held job finishes and POST ' +
    '…/test is called: nothing arrives in 3 s, and the log records reason denied. A pending ' +
    'webhook denied directly shows denied as well.',
  requirement:
    "Denial or revocation in the application's settings moves a pending or allowed webhook to " +
    'denied, and works even while the API is off.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const { endpoint, hook } = await hookTo(ctx, api, 'denied', ['job.completed'], { status: 204 });
    await ctx.control.patchSettings({ automation_api_enabled: false });
    try {
      await ctx.control.setWebhookApproval(hook.id, 'denied');
    } finally {
      await ctx.control.patchSettings({ automation_api_enabled: true });
    }
    const got = await api.get(`/v1/webhooks/${hook.id}`);
    ctx.expect(
      'webhooks.approval.deny',
      'GET /v1/webhooks/{id} after a denial made while the API was off',
      x.equal((got.body as { approval_state?: unknown } | undefined)?.approval_state, 'denied', 'approval_state'),
      got,
    );
    const pending = await api.post('/v1/webhooks', { json: { url: endpoint.url, events: ['job.completed'] } });
    if (pending.status === 201) {
      const pid = (pending.body as { id: string }).id;
      await ctx.control.setWebhookApproval(pid, 'denied');
      const g = await api.get(`/v1/webhooks/${pid}`);
      ctx.expect(
        'webhooks.approval.deny',
        'GET /v1/webhooks/{id} of a pending webhook denied',
        x.equal((g.body as { approval_state?: unknown } | undefined)?.approval_state, 'denied', 'approval_state'),
        g,
      );
    }
    const m = await ctx.fixtures.meeting();
    const job = await ctx.control.createJob({ kind: 'diarization', meeting_id: m.id, state: 'running', hold: true });
    await ctx.control.finishJob(job, 'succeeded');
    const t = await api.post(`/v1/webhooks/${hook.id}/test`);
    ctx.note(`POST …/test on the denied webhook answered ${t.status}`);
    await ctx.sleep(3000);
    ctx.expect(
      'webhooks.delivery.reason.denied',
      'deliveries to the denied webhook in 3 s',
      x.that(endpoint.deliveries.length === 0, 'none (no attempt)', `${endpoint.deliveries.length}`),
    );
    ctx.expect(
      'webhooks.test.egress-consent',
      'test deliveries to the denied webhook',
      x.that(endpoint.deliveries.filter((d) => d.body.includes('webhook.test')).length === 0, 'none', `${endpoint.deliveries.length}`),
    );
    const log = await api.get(`/v1/webhooks/${hook.id}/deliveries`);
    ctx.expect(
      'webhooks.delivery.reason.denied',
      'GET /v1/webhooks/{id}/deliveries of the denied webhook',
      x.that(log.status === 200 && reasonsIn(log.body).includes('denied'), 'an entry with reason denied', log.describe(300)),
      log,
    );
  },
});
