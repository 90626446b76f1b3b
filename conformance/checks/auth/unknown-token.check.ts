import fc from 'fast-check';
import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { lookalikeId } from '../../harness/probes.ts';
import { PROTECTED_OPERATIONS, fillPath } from '../../spec/operations.ts';

export const check = defineCheck({
  id: 'auth/unknown-token',
  clauses: ['auth.unknown-token.401'],
  level: 'requirement',
  touches: 'own',
  needs: [],
  description:
    'Random bearer tokens the target never issued (a property over operations × token text), ' +
    'and a token deleted through the Control API, get 401 unauthorized.',
  requirement: 'A bearer token that the service does not recognize is refused with 401 unauthorized.',
  async run(ctx) {
    const id = lookalikeId('3f1c0b7e-3f7e-4b0e-9d55-0c1d2e3f4a5b');
    const params = { id, operation_id: id, section: 'vad' };
    const tokenText = fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9._~+/-]{1,120}=*$/),
      fc.string({ minLength: 1, maxLength: 64 }).map((s) => s.replace(/[^\x21-\x7e]/g, 'x')),
      fc.uuid(),
    );
    await ctx.property(
      'unknown bearer tokens',
      fc.record({ op: fc.constantFrom(...PROTECTED_OPERATIONS), token: tokenText }),
      async ({ op, token }) => {
        const res = await ctx.api.request(op.method, fillPath(op.path, params), {
          token,
          ...(op.method === 'GET' || op.method === 'DELETE' ? {} : { json: {} }),
          ...(op.stream === true ? { readBodyMs: 1500 } : {}),
        });
        ctx.expect(
          'auth.unknown-token.401',
          `${op.method} ${op.path} with the unknown token ${JSON.stringify(token)}`,
          x.error(res, 401, 'unauthorized'),
          res,
        );
      },
    );
    if (ctx.has('tokens')) {
      const minted = await ctx.mintFresh({ scopes: ['read'] });
      const before = await ctx.as(minted.token).get('/v1/whoami');
      ctx.expect('auth.unknown-token.401', 'GET /v1/whoami with a freshly minted token (control)', x.status(before, 200), before);
      await ctx.control.deleteToken(minted.token_id);
      const after = await ctx.as(minted.token).get('/v1/whoami');
      ctx.expect(
        'auth.unknown-token.401',
        'GET /v1/whoami with a token deleted through the Control API',
        x.error(after, 401, 'unauthorized'),
        after,
      );
    } else ctx.note("no Control API 'tokens' capability: the deleted-token case was not run");
  },
});
