import { defineCheck } from '../../harness/check.ts';
import { importTitledMeetings } from '../../harness/api-fixtures.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'pagination/default-50',
  clauses: ['pagination.limit.default-50'],
  level: 'requirement',
  needs: ['token', 'meeting'],
  description:
    'With 55 meetings matching a word: GET /v1/meetings without limit returns 50 meetings and ' +
    'limit 50; the search without limit returns at most 50 results. Without the Control API the ' +
    'meetings are imports of silence titled with the word.',
  requirement: 'When limit is omitted a page holds at most 50 items.',
  timeoutMs: 300_000,
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    const word = ctx.fixtures.word();
    if (ctx.has('meetings'))
      await ctx.fixtures.many(55, (i) => ({
        title: `Standup ${i} ${word}`,
        segments: [{ speaker: 'S1', start: 0, end: 1, text: 'Short.' }],
        summary: null,
      }));
    else
      await importTitledMeetings(
        ctx,
        Array.from({ length: 55 }, (_, i) => `Standup ${i} ${word}`),
      );
    const list = await api.get('/v1/meetings');
    const body = list.body as { meetings?: unknown[]; limit?: unknown } | undefined;
    ctx.expect(
      'pagination.limit.default-50',
      'GET /v1/meetings without limit (55 meetings)',
      x.all(
        x.status(list, 200),
        x.that(body?.meetings?.length === 50, '50 meetings', `${String(body?.meetings?.length)} meetings`),
        x.equal(body?.limit, 50, 'limit'),
      ),
      list,
    );
    const search = await api.get('/v1/search', { query: { q: word } });
    const n = (search.body as { results?: unknown[] } | undefined)?.results?.length;
    ctx.expect(
      'pagination.limit.default-50',
      `GET /v1/search?q=${word} without limit (55 matches)`,
      x.all(x.status(search, 200), x.that(typeof n === 'number' && n <= 50, 'at most 50 results', `${String(n)} results`)),
      search,
    );
    if (typeof n === 'number' && n < 50) ctx.note(`the search returned ${n} of 55 matching meetings without a limit`);
  },
});
