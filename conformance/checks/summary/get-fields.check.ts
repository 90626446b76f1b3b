import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'summary/get-fields',
  clauses: ['summary.get.fields'],
  level: 'requirement',
  touches: 'own',
  needs: ['token', 'meeting'],
  description:
    'GET /v1/meetings/{id}/summary of a meeting with a summary answers meeting_id, status, ' +
    'regeneration_failed (boolean) and updated_at, with result holding the summary text.',
  requirement:
    'GET /v1/meetings/{id}/summary returns meeting_id, status, regeneration_failed and ' +
    'updated_at, plus result (the summary content) and error when present.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    const m = await ctx.fixtures.meetingToRead();
    const res = await api.get(`/v1/meetings/${m.id}/summary`);
    ctx.require('summary.get.fields', 'GET /v1/meetings/{id}/summary', x.all(x.status(res, 200), x.json(res)), res);
    ctx.expect(
      'summary.get.fields',
      'SummaryDto',
      x.fields(
        res.body,
        { meeting_id: 'any', status: 'any', regeneration_failed: 'boolean', updated_at: 'timestamp', result: 'any' },
        'SummaryDto',
      ),
      res,
    );
    const body = res.body as { meeting_id?: unknown; result?: unknown; error?: unknown };
    ctx.expect('summary.get.fields', 'meeting_id', x.equal(body.meeting_id, m.id, 'meeting_id'), res);
    // A seeded meeting's summary text is known; one made by import has the summary the target generated.
    const seeded = m.seed.summary?.text;
    if (seeded !== undefined)
      ctx.expect(
        'summary.get.fields',
        'result is the summary content',
        x.that(x.containsString(body.result, seeded), 'the seeded summary text inside result', x.show(body.result, 200)),
        res,
      );
    else
      ctx.expect(
        'summary.get.fields',
        'result is the summary content (generated after the import)',
        x.that(body.result !== undefined && body.result !== null, 'a result', x.show(body.result, 200)),
        res,
      );
  },
});
