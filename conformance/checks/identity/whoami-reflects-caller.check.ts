import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'identity/whoami-reflects-caller',
  clauses: ['identity.whoami.reflects-caller'],
  level: 'requirement',
  touches: 'own',
  needs: ['tokens'],
  description: 'Three tokens with different scopes each see their own token_id and scopes in whoami, and the same license_tier.',
  requirement: "whoami describes the calling token itself: its own token id and scopes, plus the installation's license tier.",
  async run(ctx) {
    const specs = [['read'], ['write', 'delete'], ['record']];
    const tiers: unknown[] = [];
    for (const scopes of specs) {
      const minted = await ctx.mintFresh({ scopes });
      const res = await ctx.as(minted.token).get('/v1/whoami');
      if (
        !ctx.expect(
          'identity.whoami.reflects-caller',
          `whoami of a token minted with ${scopes.join('+')}`,
          x.all(x.status(res, 200), x.json(res)),
          res,
        )
      )
        continue;
      const body = res.body as { token_id?: unknown; scopes?: unknown; license_tier?: unknown };
      ctx.expect(
        'identity.whoami.reflects-caller',
        `whoami.token_id of the token minted with ${scopes.join('+')}`,
        x.equal(String(body.token_id), minted.token_id, 'token_id'),
        res,
      );
      const got = Array.isArray(body.scopes) ? (body.scopes as unknown[]).map(String).sort() : body.scopes;
      ctx.expect(
        'identity.whoami.reflects-caller',
        `whoami.scopes of the token minted with ${scopes.join('+')}`,
        x.equal(got, [...scopes].sort(), 'scopes'),
        res,
      );
      tiers.push(body.license_tier);
    }
    if (tiers.length > 1) {
      ctx.expect(
        'identity.whoami.reflects-caller',
        'license_tier is the installation’s: the same for every token',
        x.that(
          tiers.every((t) => x.deepEqual(t, tiers[0])),
          'one license_tier for all callers',
          `license_tier values ${x.show(tiers)}`,
        ),
      );
    }
  },
});
