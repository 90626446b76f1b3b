import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'meetings/delete-files-param',
  clauses: ['meetings.delete.delete-files.param'],
  level: 'requirement',
  touches: 'own',
  needs: ['token', 'meeting'],
  // Without the Control API its three meetings are imports, which a busy target transcribes slowly (60 s ran out).
  timeoutMs: 180_000,
  description:
    'DELETE /v1/meetings/{id} is accepted with delete_files=true, delete_files=false and ' +
    'without it, for meetings that have a recording file.',
  requirement: 'DELETE /v1/meetings/{id} accepts the boolean query parameter delete_files, which defaults to false.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'delete']));
    for (const value of ['true', 'false', undefined]) {
      const m = await ctx.fixtures.meeting({ audio: true });
      const res = await api.delete(`/v1/meetings/${m.id}`, value === undefined ? {} : { query: { delete_files: value } });
      const what = `DELETE /v1/meetings/{id}${value === undefined ? '' : `?delete_files=${value}`}`;
      ctx.expect('meetings.delete.delete-files.param', what, x.success(res), res);
      const get = await api.get(`/v1/meetings/${m.id}`);
      ctx.expect('meetings.delete.delete-files.param', `${what}: the meeting afterwards`, x.error(get, 404, 'not_found'), get);
    }
  },
});
