import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'openapi/scope-read',
  clauses: ['openapi.scope-read'],
  level: 'requirement',
  touches: 'own',
  needs: ['tokens'],
  description: 'GET /openapi.json: no token → 401 unauthorized; read, record or write alone → 200; delete alone → 403 insufficient_scope.',
  requirement:
    'GET /openapi.json is not public: it needs a bearer token whose scopes satisfy read (read, record or write), and a delete-only token gets 403 insufficient_scope.',
  async run(ctx) {
    const none = await ctx.api.get('/openapi.json');
    ctx.expect('openapi.scope-read', 'GET /openapi.json without a token', x.error(none, 401, 'unauthorized'), none);
    for (const scope of ['read', 'record', 'write'] as const) {
      const res = await ctx.as((await ctx.mint({ scopes: [scope] })).token).get('/openapi.json');
      ctx.expect('openapi.scope-read', `GET /openapi.json with a ${scope}-only token`, x.status(res, 200), res);
    }
    const del = await ctx.as((await ctx.mint({ scopes: ['delete'] })).token).get('/openapi.json');
    ctx.expect('openapi.scope-read', 'GET /openapi.json with a delete-only token', x.error(del, 403, 'insufficient_scope'), del);
  },
});
