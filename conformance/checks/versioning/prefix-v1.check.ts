import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { fetchManifest, manifestOperations } from '../../harness/manifest.ts';

export const check = defineCheck({
  id: 'versioning/prefix-v1',
  clauses: ['versioning.prefix.v1'],
  level: 'requirement',
  needs: ['token'],
  description:
    '/health and /openapi.json answer at the root; v1 routes are not served without their /v1 ' +
    'prefix; the manifest puts every other path under /v1/.',
  requirement: 'Every route lives under the /v1 path prefix except GET /health and GET /openapi.json, which are served at the root.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    const health = await ctx.api.get('/health');
    ctx.expect('versioning.prefix.v1', 'GET /health at the root', x.status(health, 200), health);
    const openapi = await api.get('/openapi.json');
    ctx.expect('versioning.prefix.v1', 'GET /openapi.json at the root', x.status(openapi, 200), openapi);
    for (const path of ['/whoami', '/meetings', '/devices', '/models']) {
      const res = await api.get(path);
      ctx.expect(
        'versioning.prefix.v1',
        `GET ${path} (a /v1 route without its prefix)`,
        x.that(!res.ok, 'not a 2xx answer (the route lives under /v1)', res.describe()),
        res,
      );
    }
    const doc = openapi.status === 200 ? openapi.body : await fetchManifest(ctx, api.token);
    if (doc !== null && doc !== undefined) {
      const stray = manifestOperations(doc).filter((o) => o.path !== '/health' && o.path !== '/openapi.json' && !o.path.startsWith('/v1/'));
      ctx.expect(
        'versioning.prefix.v1',
        'paths of /openapi.json',
        x.that(
          stray.length === 0,
          'every path but /health and /openapi.json under /v1/',
          stray.length === 0 ? 'all under /v1/' : `outside /v1/: ${stray.map((o) => `${o.method} ${o.path}`).join(', ')}`,
        ),
        openapi,
      );
    }
  },
});
