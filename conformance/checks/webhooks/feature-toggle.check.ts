import { defineCheck } from '../../harness/check.ts';
import { publicWebhookUrl } from '../../harness/webhooks.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'webhooks/feature-toggle',
  clauses: ['webhooks.feature-toggle'],
  level: 'requirement',
  needs: ['settings', 'tokens'],
  description:
    'With webhooks_enabled false (Control API), POST /v1/webhooks, GET /v1/webhooks and GET ' +
    '/v1/webhooks/{id} are refused with a 4xx envelope; switched back on they work again.',
  requirement:
    "Webhook routes function only while webhook delivery is switched on in the application's settings, which it is not by default.",
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    const r = await api.post('/v1/webhooks', { json: { url: publicWebhookUrl(ctx), events: ['job.completed'] } });
    ctx.require('webhooks.feature-toggle', 'POST /v1/webhooks while delivery is on', x.status(r, 201), r);
    const id = (r.body as { id: string }).id;
    await ctx.control.patchSettings({ webhooks_enabled: false });
    const calls = [
      ['POST /v1/webhooks', () => api.post('/v1/webhooks', { json: { url: publicWebhookUrl(ctx), events: ['job.completed'] } })],
      ['GET /v1/webhooks', () => api.get('/v1/webhooks')],
      ['GET /v1/webhooks/{id}', () => api.get(`/v1/webhooks/${id}`)],
      ['POST /v1/webhooks/{id}/test', () => api.post(`/v1/webhooks/${id}/test`)],
    ] as const;
    for (const [what, call] of calls) {
      const res = await call();
      ctx.expect('webhooks.feature-toggle', `${what} with webhook delivery switched off`, x.refused(res), res);
    }
    await ctx.control.patchSettings({ webhooks_enabled: true });
    const back = await api.get(`/v1/webhooks/${id}`);
    ctx.expect('webhooks.feature-toggle', 'GET /v1/webhooks/{id} once switched on again', x.status(back, 200), back);
  },
});
