import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'summary/regeneration-failed-flag',
  clauses: ['summary.regeneration-failed.flag'],
  level: 'requirement',
  touches: 'own',
  needs: ['meeting', 'token'],
  description:
    'Regenerates with a model and template that do not exist; when the operation is accepted ' +
    'and then fails, GET …/summary must show regeneration_failed true. SKIPPED when the target ' +
    'refuses such a request up front (no failing regeneration can be caused through HTTP).',
  requirement: 'regeneration_failed is set when a regeneration of the summary failed.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const m = await ctx.fixtures.meeting();
    const before = await api.get(`/v1/meetings/${m.id}/summary`);
    ctx.expect(
      'summary.regeneration-failed.flag',
      'GET …/summary before any failed regeneration',
      x.that(
        (before.body as { regeneration_failed?: unknown } | undefined)?.regeneration_failed !== true,
        'regeneration_failed not true',
        before.describe(200),
      ),
      before,
    );
    for (const body of [{ model: 'no-such-model-conformance' }, { template_id: 'no_such_template_conformance' }]) {
      const res = await api.post(`/v1/meetings/${m.id}/summary/regenerate`, { json: body });
      if (res.status !== 202) continue;
      const id = (res.body as { operation_id?: unknown }).operation_id;
      let failed = false;
      for (let i = 0; i < 30 && !failed; i++) {
        const st = await api.get(`/v1/meetings/${m.id}/summary/operations/${String(id)}`);
        const state = JSON.stringify((st.body as { state?: unknown } | undefined)?.state ?? '');
        if (/fail|error/i.test(state)) failed = true;
        else if (/succe|complete|done|ready/i.test(state)) break;
        await ctx.sleep(100);
      }
      if (!failed) continue;
      const s = await api.get(`/v1/meetings/${m.id}/summary`);
      ctx.expect(
        'summary.regeneration-failed.flag',
        `GET …/summary after the failed regeneration ${JSON.stringify(body)}`,
        x.that(
          (s.body as { regeneration_failed?: unknown } | undefined)?.regeneration_failed === true,
          'regeneration_failed true',
          s.describe(250),
        ),
        s,
      );
      return;
    }
    ctx.skip('no regeneration could be made to fail through HTTP (an unknown model or template was refused up front or succeeded)');
  },
});
