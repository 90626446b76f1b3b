import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'summary/overwrite-text-required',
  clauses: ['summary.overwrite.text-required'],
  level: 'requirement',
  touches: 'own',
  needs: ['tokens', 'meetings'],
  description: 'PUT /v1/meetings/{id}/summary without text ({} or {"summary": …}) is refused with a 4xx envelope and the summary stays.',
  requirement:
    'An overwrite body without text is refused with a 4xx error.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const m = await ctx.fixtures.meeting();
    for (const body of [{}, { summary: 'No text field.' }]) {
      const res = await api.put(`/v1/meetings/${m.id}/summary`, { json: body });
      ctx.expect('summary.overwrite.text-required', `PUT /v1/meetings/{id}/summary ${JSON.stringify(body)}`, x.refused(res, 422), res);
    }
    const get = await api.get(`/v1/meetings/${m.id}/summary`);
    ctx.expect('summary.overwrite.text-required', 'the summary after the refused overwrites', x.that(x.containsString((get.body as { result?: unknown } | undefined)?.result, m.seed.summary!.text), 'the seeded text is still there', x.show(get.body, 200)), get);
  },
});
