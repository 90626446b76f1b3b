import { tokenArbitrary } from '../../harness/arbitraries.ts';
import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import type { HttpResult } from '../../harness/http.ts';
import { effectiveScopes, satisfies } from '../../spec/auth-rules.ts';
import { SCOPES } from '../../spec/constants.ts';

export const check = defineCheck({
  id: 'auth/scope-four-only',
  clauses: ['auth.scope.four-only'],
  level: 'requirement',
  touches: 'own',
  needs: ['token'],
  description:
    'whoami.scopes is a non-empty set of read, record, write and delete: for the run’s token, ' +
    'and (a property, with the Control API) for tokens of random requested scopes, origins and ' +
    'kinds that may call whoami (a delete-only token cannot: it lacks read).',
  requirement: 'Each token holds at least one of the four scopes read, record, write and delete, and no other scope is ever reported.',
  async run(ctx) {
    const check1 = (scopes: unknown, what: string, res: HttpResult): void => {
      const ok =
        Array.isArray(scopes) &&
        scopes.length > 0 &&
        scopes.every((s) => (SCOPES as readonly unknown[]).includes(s)) &&
        new Set(scopes).size === scopes.length;
      ctx.expect(
        'auth.scope.four-only',
        what,
        x.that(ok, 'a non-empty list drawn from read, record, write, delete, without repeats', `scopes = ${x.show(scopes)}`),
        res,
      );
    };
    const token = await ctx.token(['read']);
    const res = await ctx.as(token).get('/v1/whoami');
    check1((res.body as { scopes?: unknown } | undefined)?.scopes, 'whoami of the run’s token', res);
    if (!ctx.has('tokens')) return;
    await ctx.property(
      'whoami.scopes of random tokens',
      tokenArbitrary.filter((t) => satisfies('read', effectiveScopes(t))),
      async (t) => {
        const minted = await ctx.mint({ scopes: t.requested, origin: t.origin, kind: t.kind });
        const r = await ctx.as(minted.token).get('/v1/whoami');
        check1(
          (r.body as { scopes?: unknown } | undefined)?.scopes,
          `whoami of a ${t.kind} ${t.origin} token minted with [${t.requested.join(', ')}]`,
          r,
        );
      },
      { runs: ctx.runs(0.5) },
    );
  },
});
