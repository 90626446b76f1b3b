import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'search/q-missing',
  clauses: ['search.q.missing.rejected'],
  level: 'requirement',
  needs: ['token'],
  description: 'GET /v1/search without q is refused with a 4xx error envelope (400 by analogy with an empty q).',
  requirement: 'q is a required search parameter, so a search without q is refused with an error (the status is not stated).',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    for (const query of [undefined, { limit: 5 }]) {
      const res = await api.get('/v1/search', query === undefined ? {} : { query });
      ctx.expect('search.q.missing.rejected', `GET /v1/search${query === undefined ? '' : '?limit=5'} without q`, x.refused(res, 400), res);
      if (res.status !== 400 && res.status >= 400 && res.status < 500)
        ctx.note(`a missing q answered ${res.status} ${res.errorCode ?? ''}; an empty q is 400 in the spec`);
    }
  },
});
