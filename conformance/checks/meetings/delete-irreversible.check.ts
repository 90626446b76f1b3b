import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'meetings/delete-irreversible',
  clauses: ['meetings.delete.irreversible'],
  level: 'requirement',
  needs: ['token', 'meeting'],
  description:
    'DELETE /v1/meetings/{id} answers 2xx; afterwards GET answers 404 not_found, the list no ' +
    'longer holds it and a second DELETE is 404.',
  requirement: 'DELETE /v1/meetings/{id} removes the meeting permanently, after which it is not found.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'delete']));
    const m = await ctx.fixtures.meeting();
    const other = await ctx.fixtures.meeting();
    const del = await api.delete(`/v1/meetings/${m.id}`);
    ctx.require('meetings.delete.irreversible', 'DELETE /v1/meetings/{id}', x.success(del), del);
    const get = await api.get(`/v1/meetings/${m.id}`);
    ctx.expect('meetings.delete.irreversible', 'GET /v1/meetings/{id} after the delete', x.error(get, 404, 'not_found'), get);
    const list = await api.get('/v1/meetings', { query: { limit: 200 } });
    const ids = ((list.body as { meetings?: Array<{ id?: unknown }> } | undefined)?.meetings ?? []).map((i) => i.id);
    ctx.expect(
      'meetings.delete.irreversible',
      'GET /v1/meetings after the delete',
      x.that(!ids.includes(m.id) && ids.includes(other.id), `without ${m.id}, still with ${other.id}`, `ids ${x.show(ids.slice(0, 10))}`),
      list,
    );
    const again = await api.delete(`/v1/meetings/${m.id}`);
    ctx.expect('meetings.delete.irreversible', 'a second DELETE /v1/meetings/{id}', x.error(again, 404, 'not_found'), again);
  },
});
