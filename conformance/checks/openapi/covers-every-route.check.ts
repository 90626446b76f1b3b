import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { manifestOperations } from '../../harness/manifest.ts';
import { OPERATIONS, routeKey } from '../../spec/operations.ts';

export const check = defineCheck({
  id: 'openapi/covers-every-route',
  clauses: ['openapi.covers-every-route'],
  level: 'requirement',
  touches: 'own',
  needs: ['token'],
  description:
    'Each of the 43 method+path pairs of API.md’s endpoint tables is an operation of /openapi.json (path parameter names may differ).',
  requirement: 'The manifest describes every route the running service exposes, i.e. every method and path of the endpoint tables.',
  async run(ctx) {
    const res = await ctx.as(await ctx.token(['read'])).get('/openapi.json');
    ctx.require('openapi.covers-every-route', 'GET /openapi.json', x.all(x.status(res, 200), x.json(res)), res);
    const present = new Set(manifestOperations(res.body).map((o) => o.key));
    const missing = OPERATIONS.filter((o) => !present.has(routeKey(o.method, o.path)));
    ctx.expect(
      'openapi.covers-every-route',
      `the ${OPERATIONS.length} operations of the endpoint tables in the manifest`,
      x.that(
        missing.length === 0,
        `all ${OPERATIONS.length} present`,
        missing.length === 0 ? 'all present' : `${missing.length} missing: ${missing.map((o) => `${o.method} ${o.path}`).join(', ')}`,
      ),
      res,
    );
  },
});
