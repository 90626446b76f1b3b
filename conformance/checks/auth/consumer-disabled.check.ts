import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'auth/consumer-disabled',
  clauses: ['auth.consumer-disabled.403', 'errors.code.consumer_disabled.403'],
  level: 'requirement',
  touches: 'own',
  needs: ['tokens'],
  description:
    'A token switched off through the Control API gets 403 consumer_disabled while another ' +
    'token keeps working; switched on again, it works.',
  requirement: 'A token whose key has had its access switched off is refused with 403 consumer_disabled.',
  async run(ctx) {
    const off = await ctx.mintFresh({ scopes: ['read', 'write'] });
    const other = ctx.as((await ctx.mintFresh({ scopes: ['read'] })).token);
    await ctx.control.setTokenEnabled(off.token_id, false);
    for (const [method, path] of [
      ['GET', '/v1/whoami'],
      ['GET', '/v1/meetings'],
      ['PUT', '/v1/config/vad'],
    ] as const) {
      const res = await ctx.as(off.token).request(method, path, method === 'PUT' ? { json: {} } : {});
      ctx.expect(
        ['auth.consumer-disabled.403', 'errors.code.consumer_disabled.403'],
        `${method} ${path} with a token switched off`,
        x.error(res, 403, 'consumer_disabled'),
        res,
      );
    }
    const ok = await other.get('/v1/whoami');
    ctx.expect('auth.consumer-disabled.403', 'GET /v1/whoami with another token that is still on', x.status(ok, 200), ok);
    await ctx.control.setTokenEnabled(off.token_id, true);
    const back = await ctx.as(off.token).get('/v1/whoami');
    ctx.expect('auth.consumer-disabled.403', 'GET /v1/whoami with the token switched on again', x.status(back, 200), back);
  },
});
