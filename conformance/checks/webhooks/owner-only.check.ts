import { defineCheck } from '../../harness/check.ts';
import { publicWebhookUrl } from '../../harness/webhooks.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'webhooks/owner-only',
  clauses: [
    'webhooks.get.owner-only.403',
    'webhooks.delete.not-owner.403',
    'webhooks.deliveries.owner-only.403',
    'webhooks.test.owner-only.403',
    'webhooks.list.own-only',
    'errors.code.forbidden.403',
  ],
  level: 'requirement',
  needs: ['tokens'],
  description:
    'Two callers (tokens with every scope) each register a webhook: the other caller gets 403 ' +
    'forbidden on GET, DELETE, GET …/deliveries and POST …/test of it, and the webhook ' +
    'survives; GET /v1/webhooks lists only the caller’s own.',
  requirement: 'GET /v1/webhooks/{id} on a webhook owned by another caller is refused with 403.',
  async run(ctx) {
    const a = ctx.as((await ctx.mint({ scopes: ['read', 'record', 'write', 'delete'], name: 'conformance owner A' })).token);
    const b = ctx.as((await ctx.mint({ scopes: ['read', 'record', 'write', 'delete'], name: 'conformance owner B' })).token);
    const reg = async (api: typeof a): Promise<string> => {
      const r = await api.post('/v1/webhooks', { json: { url: publicWebhookUrl(ctx), events: ['job.completed'] } });
      ctx.require('webhooks.list.own-only', 'POST /v1/webhooks', x.status(r, 201), r);
      return (r.body as { id: string }).id;
    };
    const ha = await reg(a);
    const hb = await reg(b);
    const cases: Array<[string, string, () => ReturnType<typeof a.get>]> = [
      ['webhooks.get.owner-only.403', 'GET /v1/webhooks/{id} of another owner', () => b.get(`/v1/webhooks/${ha}`)],
      [
        'webhooks.deliveries.owner-only.403',
        'GET /v1/webhooks/{id}/deliveries of another owner',
        () => b.get(`/v1/webhooks/${ha}/deliveries`),
      ],
      ['webhooks.test.owner-only.403', 'POST /v1/webhooks/{id}/test of another owner', () => b.post(`/v1/webhooks/${ha}/test`)],
      ['webhooks.delete.not-owner.403', 'DELETE /v1/webhooks/{id} of another owner', () => b.delete(`/v1/webhooks/${ha}`)],
    ];
    for (const [clause, what, call] of cases) {
      const r = await call();
      ctx.expect(clause, what, x.error(r, 403), r);
      if (r.status === 403) ctx.expect('errors.code.forbidden.403', `${what}: the code`, x.error(r, 403, 'forbidden'), r);
    }
    const still = await a.get(`/v1/webhooks/${ha}`);
    ctx.expect('webhooks.delete.not-owner.403', 'GET /v1/webhooks/{id} by its owner after the refused delete', x.status(still, 200), still);
    for (const [api, own, other, who] of [
      [a, ha, hb, 'A'],
      [b, hb, ha, 'B'],
    ] as const) {
      const list = await api.get('/v1/webhooks');
      const text = JSON.stringify(list.body ?? null);
      ctx.expect(
        'webhooks.list.own-only',
        `GET /v1/webhooks by caller ${who}`,
        x.that(list.status === 200 && text.includes(own) && !text.includes(other), 'its own webhook only', list.describe(250)),
        list,
      );
    }
  },
});
