import { defineCheck } from '../../harness/check.ts';
import { publicWebhookUrl } from '../../harness/webhooks.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'webhooks/scope-read-floor',
  clauses: ['webhooks.delete.scope-read-floor', 'webhooks.test.scope-read-floor'],
  level: 'conflict',
  touches: 'own',
  needs: ['tokens'],
  description:
    'A read-only owner tests (202) and deletes (2xx) its webhook (the spec), or is refused with ' +
    '403 insufficient_scope (write required: NON_STRICT).',
  requirement:
    'DELETE /v1/webhooks/{id} needs only a read-satisfying scope (not delete), which the spec ' +
    'chooses over references that list write.',
  async run(ctx) {
    const api = ctx.as((await ctx.mint({ scopes: ['read'] })).token);
    const r = await api.post('/v1/webhooks', { json: { url: publicWebhookUrl(ctx), events: ['job.completed'] } });
    ctx.require('webhooks.delete.scope-read-floor', 'POST /v1/webhooks with a read-only token', x.status(r, 201), r);
    const id = (r.body as { id: string }).id;
    const t = await api.post(`/v1/webhooks/${id}/test`);
    ctx.conflict(
      'webhooks.test.scope-read-floor',
      'POST /v1/webhooks/{id}/test by a read-only owner',
      t.status === 202 ? 0 : t.status === 403 && t.errorCode === 'insufficient_scope' ? 1 : null,
      t.describe(150),
      t,
    );
    const d = await api.delete(`/v1/webhooks/${id}`);
    ctx.conflict(
      'webhooks.delete.scope-read-floor',
      'DELETE /v1/webhooks/{id} by a read-only owner',
      d.ok ? 0 : d.status === 403 && d.errorCode === 'insufficient_scope' ? 1 : null,
      d.describe(150),
      d,
    );
  },
});
