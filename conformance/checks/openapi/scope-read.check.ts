import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'openapi/scope-read',
  clauses: ['openapi.scope-read'],
  level: 'requirement',
  touches: 'own',
  needs: ['token'],
  description:
    'GET /openapi.json: no token → 401 unauthorized; read, record or write alone → 200; delete ' +
    'alone → 403 insufficient_scope. A single-scope token that neither the Control API nor the ' +
    'tokens file can supply is noted, not checked; the run’s own read-satisfying token must ' +
    'then get 200.',
  requirement:
    'GET /openapi.json is not public: it needs a bearer token whose scopes satisfy read (read, ' +
    'record or write), and a delete-only token gets 403 insufficient_scope.',
  async run(ctx) {
    const none = await ctx.api.get('/openapi.json');
    ctx.expect('openapi.scope-read', 'GET /openapi.json without a token', x.error(none, 401, 'unauthorized'), none);
    // A token of exactly one scope comes from the Control API or the tokens file; with neither, the row is noted.
    const available = (scope: 'read' | 'record' | 'write' | 'delete'): boolean =>
      ctx.has('tokens') || (ctx.env.tokenPool?.find({ scopes: [scope] }, true) ?? null) !== null;
    const missing: string[] = [];
    for (const scope of ['read', 'record', 'write'] as const) {
      if (!available(scope)) {
        missing.push(scope);
        continue;
      }
      const res = await ctx.as((await ctx.mint({ scopes: [scope] })).token).get('/openapi.json');
      ctx.expect('openapi.scope-read', `GET /openapi.json with a ${scope}-only token`, x.status(res, 200), res);
    }
    if (missing.length > 0) {
      const res = await ctx.as(await ctx.token(['read'])).get('/openapi.json');
      ctx.expect(
        'openapi.scope-read',
        'GET /openapi.json with the run’s token (it holds a read-satisfying scope)',
        x.status(res, 200),
        res,
      );
    }
    if (!available('delete')) missing.push('delete');
    else {
      const del = await ctx.as((await ctx.mint({ scopes: ['delete'] })).token).get('/openapi.json');
      ctx.expect('openapi.scope-read', 'GET /openapi.json with a delete-only token', x.error(del, 403, 'insufficient_scope'), del);
    }
    if (missing.length > 0)
      ctx.note(
        `not checked: GET /openapi.json with a token of only ${missing.join(', only ')} (give the Control API's tokens capability or a tokens file holding one)`,
      );
  },
});
