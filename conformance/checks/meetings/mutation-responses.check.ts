import { defineCheck } from '../../harness/check.ts';
import type { HttpResult } from '../../harness/http.ts';

export const check = defineCheck({
  id: 'meetings/mutation-responses',
  clauses: ['meetings.mutation.response.gap'],
  level: 'gap',
  touches: 'own',
  needs: ['token', 'meeting'],
  description: 'Records the status and body of PATCH rename, PUT summary, PUT speaker-labels and DELETE meeting.',
  requirement:
    'The response bodies of PATCH rename, PUT summary, DELETE meeting and PUT speaker-labels ' +
    'are not shown; only a 2xx outcome is defined.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write', 'delete']));
    const m = await ctx.fixtures.meeting();
    const record = (what: string, res: HttpResult): void => ctx.observe('meetings.mutation.response.gap', what, res.describe(400), res);
    record('PATCH /v1/meetings/{id}', await api.patch(`/v1/meetings/${m.id}`, { json: { title: 'Renamed by the conformance suite' } }));
    record('PUT /v1/meetings/{id}/summary', await api.put(`/v1/meetings/${m.id}/summary`, { json: { text: 'Overwritten summary.' } }));
    record(
      'PUT /v1/meetings/{id}/speaker-labels',
      await api.put(`/v1/meetings/${m.id}/speaker-labels`, { json: { labels: { S1: 'Alice' } } }),
    );
    record('DELETE /v1/meetings/{id}', await api.delete(`/v1/meetings/${m.id}`));
  },
});
