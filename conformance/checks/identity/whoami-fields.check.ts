import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'identity/whoami-fields',
  clauses: ['identity.whoami.fields'],
  level: 'requirement',
  touches: 'own',
  needs: ['token'],
  description: 'GET /v1/whoami answers 200 with token_id, scopes (an array), license_tier and server_version.',
  requirement: 'GET /v1/whoami returns token_id, scopes (an array), license_tier and server_version.',
  async run(ctx) {
    const res = await ctx.as(await ctx.token(['read'])).get('/v1/whoami');
    ctx.require('identity.whoami.fields', 'GET /v1/whoami', x.all(x.status(res, 200), x.json(res)), res);
    ctx.expect(
      'identity.whoami.fields',
      'whoami body',
      x.fields(res.body, { token_id: 'any', scopes: 'array', license_tier: 'any', server_version: 'any' }, 'whoami'),
      res,
    );
    const scopes = (res.body as { scopes?: unknown[] }).scopes;
    if (Array.isArray(scopes)) {
      ctx.expect(
        'identity.whoami.fields',
        'whoami.scopes items',
        x.that(
          scopes.every((s) => typeof s === 'string'),
          'scopes: an array of strings',
          `scopes = ${x.show(scopes)}`,
        ),
        res,
      );
    }
  },
});
