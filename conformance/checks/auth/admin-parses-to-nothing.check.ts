import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import type { HttpResult } from '../../harness/http.ts';
import { lookalikeId } from '../../harness/probes.ts';

export const check = defineCheck({
  id: 'auth/admin-parses-to-nothing',
  clauses: ['auth.scope.admin-parses-to-nothing'],
  level: 'requirement',
  needs: ['tokens'],
  description:
    'A token asked for with ["admin", "read"] holds just read (whoami never lists admin); one ' +
    'asked for with ["admin"] is refused 403 insufficient_scope on read, write and delete ' +
    'routes.',
  requirement: 'There is no admin scope: a requested scope string admin yields no scope at all and grants nothing.',
  async run(ctx) {
    const mixed = await ctx.mintFresh({ scopes: ['admin', 'read'] });
    const who = await ctx.as(mixed.token).get('/v1/whoami');
    const scopes = (who.body as { scopes?: unknown } | undefined)?.scopes;
    ctx.expect(
      'auth.scope.admin-parses-to-nothing',
      'whoami of a token minted with ["admin", "read"]',
      x.all(x.status(who, 200), x.equal(scopes, ['read'], 'scopes')),
      who,
    );
    const adminOnly = ctx.as((await ctx.mintFresh({ scopes: ['admin'] })).token);
    const id = lookalikeId('3f1c0b7e-3f7e-4b0e-9d55-0c1d2e3f4a5b');
    const attempts: Array<[string, Promise<HttpResult>]> = [
      ['GET /v1/whoami', adminOnly.get('/v1/whoami')],
      ['GET /v1/meetings', adminOnly.get('/v1/meetings')],
      ['PUT /v1/config/vad', adminOnly.put('/v1/config/vad', { json: {} })],
      ['DELETE /v1/meetings/{id}', adminOnly.delete(`/v1/meetings/${id}`)],
      ['GET /v1/webhooks?all=true', adminOnly.get('/v1/webhooks', { query: { all: 'true' } })],
    ];
    for (const [what, p] of attempts) {
      const res = await p;
      ctx.expect(
        'auth.scope.admin-parses-to-nothing',
        `${what} with a token minted with ["admin"]`,
        x.error(res, 403, 'insufficient_scope'),
        res,
      );
    }
  },
});
