import { defineCheck } from '../../harness/check.ts';
import { hookTo } from '../../harness/webhooks.ts';

export const check = defineCheck({
  id: 'webhooks/deliveries-gap',
  clauses: ['webhooks.deliveries.entry.gap'],
  level: 'gap',
  touches: 'own',
  needs: ['receiver', 'settings', 'restart', 'webhook-approval', 'tokens'],
  description: 'Records the delivery log after one successful and one failed test delivery.',
  requirement: 'The fields of a delivery-log entry are not shown (only its reason codes are) and are implementation-defined.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    const { endpoint, hook } = await hookTo(ctx, api, 'gap', ['job.completed'], [{ status: 204 }, { status: 500 }]);
    await api.post(`/v1/webhooks/${hook.id}/test`);
    await endpoint.waitFor(1, 5000);
    await api.post(`/v1/webhooks/${hook.id}/test`);
    await endpoint.waitFor(2, 5000);
    await ctx.sleep(300);
    const log = await api.get(`/v1/webhooks/${hook.id}/deliveries`);
    ctx.observe('webhooks.deliveries.entry.gap', 'GET /v1/webhooks/{id}/deliveries', log.describe(1200), log);
  },
});
