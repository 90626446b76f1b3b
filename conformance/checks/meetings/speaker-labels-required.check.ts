import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'meetings/speaker-labels-required',
  clauses: ['meetings.speaker-labels.labels-required'],
  level: 'requirement',
  touches: 'own',
  needs: ['token', 'meeting'],
  description: 'PUT /v1/meetings/{id}/speaker-labels without labels ({} or {"speakers": {...}}) is refused with a 4xx envelope.',
  requirement: 'A speaker-labels body without labels is refused with a 4xx error.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const m = await ctx.fixtures.meeting();
    for (const body of [{}, { speakers: { S1: 'Alice' } }]) {
      const res = await api.put(`/v1/meetings/${m.id}/speaker-labels`, { json: body });
      ctx.expect(
        'meetings.speaker-labels.labels-required',
        `PUT /v1/meetings/{id}/speaker-labels ${JSON.stringify(body)}`,
        x.refused(res, 422),
        res,
      );
    }
  },
});
