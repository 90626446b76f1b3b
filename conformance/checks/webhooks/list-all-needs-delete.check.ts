import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'webhooks/list-all-needs-delete',
  clauses: ['webhooks.list.all.needs-delete'],
  level: 'conflict',
  needs: ['tokens'],
  description:
    'A first-party token without delete is refused all=true (403); one with delete is served ' +
    '(the spec) or refused as well (an admin role no token holds: NON_STRICT).',
  requirement: 'GET /v1/webhooks?all=true requires the delete scope, which the spec chooses over references that require an admin role.',
  async run(ctx) {
    const noDel = ctx.as((await ctx.mint({ scopes: ['read', 'record', 'write'], kind: 'first_party' })).token);
    const r1 = await noDel.get('/v1/webhooks', { query: { all: 'true' } });
    if (r1.ok) {
      ctx.conflict(
        'webhooks.list.all.needs-delete',
        'GET /v1/webhooks?all=true, first-party token without delete',
        null,
        r1.describe(150),
        r1,
      );
      return;
    }
    ctx.expect('webhooks.list.all.needs-delete', 'GET /v1/webhooks?all=true, first-party token without delete', x.error(r1, 403), r1);
    const del = ctx.as((await ctx.mint({ scopes: ['read', 'delete'], kind: 'first_party' })).token);
    const r2 = await del.get('/v1/webhooks', { query: { all: 'true' } });
    ctx.conflict(
      'webhooks.list.all.needs-delete',
      'GET /v1/webhooks?all=true, first-party token with delete',
      r2.status === 200 ? 0 : r2.status === 403 ? 1 : null,
      r2.describe(150),
      r2,
    );
  },
});
