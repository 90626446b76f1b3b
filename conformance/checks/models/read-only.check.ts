import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { fetchManifest, manifestOperations } from '../../harness/manifest.ts';

export const check = defineCheck({
  id: 'models/read-only',
  clauses: ['models.read-only'],
  level: 'requirement',
  touches: 'own',
  needs: ['token'],
  description:
    'No route downloads, installs or deletes a model: POST/PUT/DELETE on /v1/models paths ' +
    'answer 404 or 405, and the manifest has only GET under /v1/models.',
  requirement: 'Models are read-only over the API: no route downloads or deletes a model.',
  async run(ctx) {
    const api = ctx.as(await ctx.token());
    const list = await api.get('/v1/models');
    const name = ((list.body as { models?: Array<{ name?: unknown }> } | undefined)?.models?.[0]?.name as string | undefined) ?? 'base.en';
    const attempts: Array<[string, string, unknown]> = [
      ['POST', '/v1/models', { name }],
      ['POST', '/v1/models/download', { name }],
      ['POST', `/v1/models/${encodeURIComponent(name)}/download`, {}],
      ['PUT', `/v1/models/${encodeURIComponent(name)}`, {}],
      ['DELETE', `/v1/models/${encodeURIComponent(name)}`, undefined],
    ];
    for (const [method, path, body] of attempts) {
      const res = await api.request(method, path, body === undefined ? {} : { json: body });
      ctx.expect('models.read-only', `${method} ${path}`, x.status(res, 404, 405), res);
    }
    const doc = await fetchManifest(ctx, api.token);
    if (doc !== null) {
      const writes = manifestOperations(doc).filter(
        (o) => o.path.startsWith('/v1/models') && o.method !== 'GET' && o.method !== 'HEAD' && o.method !== 'OPTIONS',
      );
      ctx.expect(
        'models.read-only',
        'operations of /openapi.json under /v1/models',
        x.that(writes.length === 0, 'GET only', writes.map((o) => `${o.method} ${o.path}`).join(', ') || 'GET only'),
      );
    }
  },
});
