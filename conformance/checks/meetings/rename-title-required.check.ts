import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'meetings/rename-title-required',
  clauses: ['meetings.rename.title-required'],
  level: 'requirement',
  touches: 'own',
  needs: ['token', 'meeting'],
  description: 'PATCH /v1/meetings/{id} with {} or with {"name": …} (no title) is refused with a 4xx envelope, and the title stays.',
  requirement: 'A rename body without title is refused with a 4xx error.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const m = await ctx.fixtures.meeting();
    for (const body of [{}, { name: 'Renamed' }]) {
      const res = await api.patch(`/v1/meetings/${m.id}`, { json: body });
      ctx.expect('meetings.rename.title-required', `PATCH /v1/meetings/{id} ${JSON.stringify(body)}`, x.refused(res, 422), res);
    }
    const get = await api.get(`/v1/meetings/${m.id}`);
    ctx.expect(
      'meetings.rename.title-required',
      'the title after the refused renames',
      x.equal((get.body as { title?: unknown } | undefined)?.title, m.seed.title, 'title'),
      get,
    );
  },
});
