import { defineCheck } from '../../harness/check.ts';
import { publicWebhookUrl } from '../../harness/webhooks.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'webhooks/list-all',
  clauses: ['webhooks.list.all.needs-first-party', 'webhooks.list.all.lists-everyone'],
  level: 'requirement',
  needs: ['tokens'],
  description:
    'Two standard callers register webhooks; GET /v1/webhooks?all=true with a standard token ' +
    'holding every scope (delete included) is refused with 403; with a first-party token ' +
    'holding delete it lists both callers’ webhooks.',
  requirement: 'all=true also requires a first-party token, so other tokens are refused even when they hold delete.',
  async run(ctx) {
    const a = ctx.as((await ctx.mint({ scopes: ['read', 'record', 'write', 'delete'], name: 'conformance owner A' })).token);
    const b = ctx.as((await ctx.mint({ scopes: ['read'], name: 'conformance owner B' })).token);
    const ids: string[] = [];
    for (const api of [a, b]) {
      const r = await api.post('/v1/webhooks', { json: { url: publicWebhookUrl(ctx), events: ['job.completed'] } });
      if (r.status === 201) ids.push((r.body as { id: string }).id);
    }
    const std = await a.get('/v1/webhooks', { query: { all: 'true' } });
    ctx.expect('webhooks.list.all.needs-first-party', 'GET /v1/webhooks?all=true, standard token with every scope', x.error(std, 403), std);
    const fp = ctx.as((await ctx.mint({ scopes: ['read', 'delete'], kind: 'first_party', name: 'conformance first party' })).token);
    const all = await fp.get('/v1/webhooks', { query: { all: 'true' } });
    const text = JSON.stringify(all.body ?? null);
    ctx.expect(
      'webhooks.list.all.lists-everyone',
      'GET /v1/webhooks?all=true, first-party token with read and delete',
      x.that(all.status === 200 && ids.every((id) => text.includes(id)), `200 listing ${ids.join(', ')}`, all.describe(300)),
      all,
    );
  },
});
