import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { fetchManifest, manifestOperations } from '../../harness/manifest.ts';

export const check = defineCheck({
  id: 'service/no-meeting-create-route',
  clauses: ['service.meetings.no-create-route'],
  level: 'requirement',
  needs: ['token'],
  description: 'POST and PUT /v1/meetings are not served (404 or 405), create nothing, and the manifest has no such operation.',
  requirement:
    'No API call creates a meeting (meetings come only from the recording flow or an import ' +
    'job), so there is no meeting-create operation such as POST /v1/meetings.',
  async run(ctx) {
    const api = ctx.as(await ctx.token());
    const before = await api.get('/v1/meetings', { query: { limit: 1 } });
    const total = (before.body as { total?: unknown } | undefined)?.total;
    for (const method of ['POST', 'PUT'] as const) {
      const res = await api.request(method, '/v1/meetings', { json: { title: `Created ${ctx.fixtures.word()}` } });
      ctx.expect('service.meetings.no-create-route', `${method} /v1/meetings with a title`, x.status(res, 404, 405), res);
    }
    const after = await api.get('/v1/meetings', { query: { limit: 1 } });
    const totalAfter = (after.body as { total?: unknown } | undefined)?.total;
    if (typeof total === 'number') {
      ctx.expect(
        'service.meetings.no-create-route',
        'GET /v1/meetings total after the attempts',
        x.equal(totalAfter, total, 'total'),
        after,
      );
    }
    const doc = await fetchManifest(ctx, api.token);
    if (doc !== null) {
      const creates = manifestOperations(doc).filter(
        (o) => (o.method === 'POST' || o.method === 'PUT') && /^\/v1\/meetings\/?$/.test(o.path),
      );
      ctx.expect(
        'service.meetings.no-create-route',
        'operations of /openapi.json on /v1/meetings',
        x.that(
          creates.length === 0,
          'no POST or PUT /v1/meetings in the manifest',
          creates.map((o) => `${o.method} ${o.path}`).join(', ') || 'none',
        ),
      );
    }
  },
});
