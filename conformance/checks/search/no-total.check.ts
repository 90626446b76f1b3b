import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'search/no-total',
  clauses: ['search.no-total'],
  level: 'requirement',
  needs: ['token', 'meeting'],
  description:
    'With three meetings whose titles hold a made-up word (seeded, or made by importing speech ' +
    'with that title): the search response has no total key, and limit=1 gives at most one ' +
    'result.',
  requirement: 'The search response has no total count, and the number of results is capped by the page limit.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    const word = ctx.fixtures.word();
    await ctx.fixtures.many(3, (i) => ({ title: `Sync ${i} about ${word}` }));
    const all = await api.get('/v1/search', { query: { q: word } });
    ctx.require('search.no-total', `GET /v1/search?q=${word}`, x.all(x.status(all, 200), x.json(all)), all);
    ctx.expect(
      'search.no-total',
      'keys of the search response',
      x.that(!('total' in (all.body as object)), 'no total key', `keys ${x.show(Object.keys(all.body as object))}`),
      all,
    );
    const one = await api.get('/v1/search', { query: { q: word, limit: 1 } });
    const n = (one.body as { results?: unknown[] } | undefined)?.results?.length;
    ctx.expect(
      'search.no-total',
      `GET /v1/search?q=${word}&limit=1`,
      x.all(x.status(one, 200), x.that(typeof n === 'number' && n <= 1, 'at most 1 result', `${String(n)} results`)),
      one,
    );
  },
});
