import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { fetchManifest, manifestOperations } from '../../harness/manifest.ts';

export const check = defineCheck({
  id: 'config/no-whole-config-route',
  clauses: ['config.no-whole-config-route'],
  level: 'requirement',
  needs: ['token'],
  description: 'GET and PUT /v1/config (and /v1/config/) answer 404 or 405, and the manifest has no operation on /v1/config itself.',
  requirement: 'No single route reads or writes the complete configuration.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    for (const path of ['/v1/config', '/v1/config/']) {
      const get = await api.get(path);
      ctx.expect('config.no-whole-config-route', `GET ${path}`, x.status(get, 404, 405), get);
      const put = await api.put(path, { json: {} });
      ctx.expect('config.no-whole-config-route', `PUT ${path}`, x.status(put, 404, 405), put);
    }
    const doc = await fetchManifest(ctx, api.token);
    if (doc !== null) {
      const whole = manifestOperations(doc).filter((o) => /^\/v1\/config\/?$/.test(o.path));
      ctx.expect(
        'config.no-whole-config-route',
        'operations of /openapi.json on /v1/config',
        x.that(whole.length === 0, 'none', whole.map((o) => `${o.method} ${o.path}`).join(', ') || 'none'),
      );
    }
  },
});
