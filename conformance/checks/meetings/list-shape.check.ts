import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'meetings/list-shape',
  clauses: ['meetings.list.shape'],
  level: 'requirement',
  needs: ['token'],
  description:
    'GET /v1/meetings answers 200 with meetings (an array), total, limit and offset (integers); ' +
    'total counts every meeting, whatever the page size.',
  requirement: 'GET /v1/meetings returns meetings (an array of MeetingDto) together with total, limit and offset.',
  async run(ctx) {
    if (ctx.has('meetings')) await ctx.fixtures.many(3, () => ({}));
    const api = ctx.as(await ctx.token(['read']));
    const res = await api.get('/v1/meetings');
    ctx.expect(
      'meetings.list.shape',
      'GET /v1/meetings',
      x.all(
        x.status(res, 200),
        x.json(res),
        x.fields(res.body, { meetings: 'array', total: 'integer', limit: 'integer', offset: 'integer' }, 'MeetingListResponse'),
      ),
      res,
    );
    // total counts every meeting, not the page: page through with limit=1 and compare.
    const total = (res.body as { total?: unknown } | undefined)?.total;
    if (typeof total === 'number' && total <= 300) {
      let seen = 0;
      for (let offset = 0; offset < total + 2; offset += 100) {
        const page = await api.get('/v1/meetings', { query: { limit: 100, offset }, label: 'count every meeting' });
        const n = (page.body as { meetings?: unknown[] } | undefined)?.meetings?.length ?? 0;
        seen += n;
        if (n < 100) break;
      }
      const one = await api.get('/v1/meetings', { query: { limit: 1 } });
      ctx.expect(
        'meetings.list.shape',
        'total with limit=1',
        x.equal((one.body as { total?: unknown } | undefined)?.total, seen, 'total (all meetings, whatever the page)'),
        one,
      );
    }
  },
});
