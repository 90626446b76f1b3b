import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'pairing/request-no-auth',
  clauses: ['pairing.request.no-auth'],
  level: 'requirement',
  needs: [],
  description: 'POST /v1/pair/request {client_name, scopes} without an Authorization header answers 2xx.',
  requirement: 'POST /v1/pair/request needs no Authorization header and creates a pairing request.',
  async run(ctx) {
    const res = await ctx.api.post('/v1/pair/request', { json: { client_name: `Conformance ${ctx.fixtures.word(6)}`, scopes: ['read'] } });
    ctx.expect('pairing.request.no-auth', 'POST /v1/pair/request without a token', x.all(x.success(res), x.json(res)), res);
    const two = await ctx.api.post('/v1/pair/request', { json: { client_name: 'Conformance phone', scopes: ['read', 'record'] } });
    ctx.expect('pairing.request.no-auth', 'a second POST /v1/pair/request without a token', x.success(two), two);
  },
});
