import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'health/no-auth',
  clauses: ['health.no-auth'],
  level: 'requirement',
  touches: 'own',
  needs: [],
  description: 'GET /health answers 200 with a JSON body without any Authorization header, and also when an unknown token is sent.',
  requirement: 'GET /health needs no Authorization header and answers 200 with the health body.',
  async run(ctx) {
    const res = await ctx.api.get('/health');
    ctx.expect('health.no-auth', 'GET /health without a token', x.status(res, 200), res);
    ctx.expect(
      'health.no-auth',
      'GET /health without a token: the health body',
      x.all(x.json(res), x.fields(res.body, { status: 'any' }, 'health')),
      res,
    );
    const junk = await ctx.api.get('/health', { token: `conformance-unknown-${ctx.fixtures.word()}` });
    ctx.expect('health.no-auth', 'GET /health with an unrecognized bearer token (the route needs none)', x.status(junk, 200), junk);
  },
});
