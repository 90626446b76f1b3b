import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'meetings/delete-cascade',
  clauses: ['meetings.delete.cascade'],
  level: 'requirement',
  touches: 'own',
  needs: ['token', 'meeting'],
  description: 'After deleting a meeting that had a transcript and a summary, GET …/transcript and …/summary answer 404 not_found.',
  requirement: 'Deleting a meeting also deletes its transcript and summary.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'delete']));
    const m = await ctx.fixtures.meeting();
    for (const part of ['transcript', 'summary']) {
      const before = await api.get(`/v1/meetings/${m.id}/${part}`);
      // Readable before the delete: the premise that makes a 404 after it mean the cascade.
      ctx.premise(`GET /v1/meetings/{id}/${part} before the delete`, x.status(before, 200), before);
    }
    const del = await api.delete(`/v1/meetings/${m.id}`);
    ctx.require('meetings.delete.cascade', 'DELETE /v1/meetings/{id}', x.success(del), del);
    for (const part of ['transcript', 'summary']) {
      const res = await api.get(`/v1/meetings/${m.id}/${part}`);
      ctx.expect('meetings.delete.cascade', `GET /v1/meetings/{id}/${part} after the delete`, x.error(res, 404, 'not_found'), res);
    }
  },
});
