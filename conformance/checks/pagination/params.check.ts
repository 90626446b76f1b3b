import { defineCheck } from '../../harness/check.ts';
import { importTitledMeetings } from '../../harness/api-fixtures.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'pagination/params',
  clauses: ['pagination.params'],
  level: 'requirement',
  needs: ['token', 'meeting'],
  description:
    'GET /v1/meetings and GET /v1/search honour limit and offset: with five matching meetings, ' +
    'limit=2&offset=1 gives the second and third items of the whole sequence. Without the ' +
    'Control API the meetings are imports of silence titled with the word; what search looks at ' +
    'is not shown, so a search that finds none of them makes the check SKIPPED after the list ' +
    'is graded.',
  requirement: 'GET /v1/meetings and GET /v1/search page their results with the query parameters limit and offset.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    const word = ctx.fixtures.word();
    if (ctx.has('meetings')) await ctx.fixtures.many(5, (i) => ({ title: `Review ${i} ${word}` }));
    else
      await importTitledMeetings(
        ctx,
        [0, 1, 2, 3, 4].map((i) => `Review ${i} ${word}`),
      );
    const ids = (body: unknown, key: 'meetings' | 'results'): unknown[] =>
      ((body as Record<string, Array<Record<string, unknown>>> | undefined)?.[key] ?? []).map((m) =>
        key === 'meetings' ? m.id : m.meeting_id,
      );
    const fullM = await api.get('/v1/meetings', { query: { limit: 200 } });
    const pageM = await api.get('/v1/meetings', { query: { limit: 2, offset: 1 } });
    ctx.expect(
      'pagination.params',
      'GET /v1/meetings?limit=2&offset=1',
      x.all(x.status(pageM, 200), x.equal(ids(pageM.body, 'meetings'), ids(fullM.body, 'meetings').slice(1, 3), 'meeting ids')),
      pageM,
    );
    const fullS = await api.get('/v1/search', { query: { q: word, limit: 200 } });
    if (!ctx.has('meetings'))
      ctx.premise(
        'a search that finds meetings by a word of their titles (imports of silence have no other text)',
        x.that(ids(fullS.body, 'results').length > 0, 'results', fullS.describe(150)),
        fullS,
      );
    const pageS = await api.get('/v1/search', { query: { q: word, limit: 2, offset: 1 } });
    ctx.expect(
      'pagination.params',
      `GET /v1/search?q=${word}&limit=2&offset=1`,
      x.all(x.status(pageS, 200), x.equal(ids(pageS.body, 'results'), ids(fullS.body, 'results').slice(1, 3), 'result meeting ids')),
      pageS,
    );
    ctx.expect(
      'pagination.params',
      `GET /v1/search?q=${word}&limit=200`,
      x.that(ids(fullS.body, 'results').length >= 5, 'the five matching meetings', `${ids(fullS.body, 'results').length} results`),
      fullS,
    );
  },
});
