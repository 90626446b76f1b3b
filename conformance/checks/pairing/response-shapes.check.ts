import { defineCheck } from '../../harness/check.ts';
import { pollPath } from '../../harness/pairing.ts';

export const check = defineCheck({
  id: 'pairing/response-shapes',
  clauses: ['pairing.response.gap'],
  level: 'gap',
  needs: [],
  description: 'Records the answer of POST /v1/pair/request, how it conveys the id to poll, and the answer of the poll.',
  requirement:
    'The response bodies of the pairing request and of the poll, including how the id to poll ' +
    'is conveyed, are not shown apart from the raw token returned once on approval.',
  async run(ctx) {
    const req = await ctx.api.post('/v1/pair/request', { json: { client_name: 'Conformance tablet', scopes: ['read'] } });
    ctx.observe('pairing.response.gap', 'POST /v1/pair/request', req.describe(400), req);
    const path = pollPath(req);
    ctx.observe('pairing.response.gap', 'the id to poll', path ?? 'not found in the answer');
    if (path !== null) {
      const poll = await ctx.api.get(path);
      ctx.observe('pairing.response.gap', `GET ${path}`, poll.describe(400), poll);
    }
    const unknown = await ctx.api.get('/v1/pair/00000000-0000-4000-8000-000000000000');
    ctx.observe('pairing.response.gap', 'GET /v1/pair/{unknown id}', unknown.describe(200), unknown);
  },
});
