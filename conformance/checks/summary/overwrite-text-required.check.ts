import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'summary/overwrite-text-required',
  clauses: ['summary.overwrite.text-required'],
  level: 'requirement',
  touches: 'own',
  needs: ['token', 'meeting'],
  description: 'PUT /v1/meetings/{id}/summary without text ({} or {"summary": …}) is refused with a 4xx envelope and the summary stays.',
  requirement: 'An overwrite body without text is refused with a 4xx error.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const m = await ctx.fixtures.meeting();
    const before = await api.get(`/v1/meetings/${m.id}/summary`);
    const beforeResult = JSON.stringify((before.body as { result?: unknown } | undefined)?.result ?? null);
    for (const body of [{}, { summary: 'No text field.' }]) {
      const res = await api.put(`/v1/meetings/${m.id}/summary`, { json: body });
      ctx.expect('summary.overwrite.text-required', `PUT /v1/meetings/{id}/summary ${JSON.stringify(body)}`, x.refused(res, 422), res);
    }
    const get = await api.get(`/v1/meetings/${m.id}/summary`);
    const result = (get.body as { result?: unknown } | undefined)?.result;
    const seeded = m.seed.summary?.text;
    if (seeded !== undefined)
      ctx.expect(
        'summary.overwrite.text-required',
        'the summary after the refused overwrites',
        x.that(x.containsString(result, seeded), 'the seeded text is still there', x.show(get.body, 200)),
        get,
      );
    // A meeting made by import: the summary read before the refused overwrites is still there.
    else
      ctx.expect(
        'summary.overwrite.text-required',
        'the summary after the refused overwrites',
        x.that(
          JSON.stringify(result ?? null) === beforeResult,
          `the summary read before: ${beforeResult.slice(0, 150)}`,
          x.show(get.body, 200),
        ),
        get,
      );
  },
});
