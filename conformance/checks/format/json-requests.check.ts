import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'format/json-requests',
  clauses: ['format.json.bodies'],
  level: 'requirement',
  touches: 'own',
  needs: ['token', 'meeting'],
  description:
    'JSON request bodies are taken as JSON: sent as application/json, as application/json; ' +
    'charset=utf-8, and with non-ASCII text, a rename is applied exactly.',
  requirement: 'Request and response bodies are JSON, except the import request body (raw bytes), SSE wait streams and md/txt exports.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const m = await ctx.fixtures.meeting();
    const cases: Array<[string, string]> = [
      ['application/json', `Plain ${ctx.fixtures.word(6)}`],
      ['application/json; charset=utf-8', `Charset ${ctx.fixtures.word(6)}`],
      ['application/json', `Grüße aus Zürich — 会議 ${ctx.fixtures.word(6)}`],
    ];
    for (const [contentType, title] of cases) {
      const res = await api.patch(`/v1/meetings/${m.id}`, { body: JSON.stringify({ title }), contentType });
      ctx.expect('format.json.bodies', `PATCH /v1/meetings/{id} with Content-Type ${contentType}`, x.success(res), res);
      const get = await api.get(`/v1/meetings/${m.id}`);
      ctx.expect(
        'format.json.bodies',
        `the title after a PATCH sent as ${contentType}`,
        x.equal((get.body as { title?: unknown } | undefined)?.title, title, 'title'),
        get,
      );
    }
  },
});
