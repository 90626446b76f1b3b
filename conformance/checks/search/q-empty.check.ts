import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'search/q-empty',
  clauses: ['search.q.empty.400', 'errors.code.bad_request.400'],
  level: 'requirement',
  needs: ['token'],
  description: 'GET /v1/search?q= (empty) answers 400 bad_request.',
  requirement: 'GET /v1/search with an empty q is refused with 400.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    const res = await api.get('/v1/search', { query: { q: '' } });
    ctx.expect(['search.q.empty.400', 'errors.code.bad_request.400'], 'GET /v1/search?q=', x.error(res, 400, 'bad_request'), res);
    const withLimit = await api.get('/v1/search', { query: { q: '', limit: 10, offset: 0 } });
    ctx.expect(
      ['search.q.empty.400', 'errors.code.bad_request.400'],
      'GET /v1/search?q=&limit=10&offset=0',
      x.error(withLimit, 400, 'bad_request'),
      withLimit,
    );
  },
});
