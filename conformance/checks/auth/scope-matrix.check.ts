import fc from 'fast-check';
import { tokenArbitrary } from '../../harness/arbitraries.ts';
import { defineCheck } from '../../harness/check.ts';
import type { CheckContext } from '../../harness/context.ts';
import * as x from '../../harness/expect.ts';
import type { ProbeResources } from '../../harness/probes.ts';
import { probeFor, setupProbes } from '../../harness/probes.ts';
import type { TokenModel } from '../../spec/auth-rules.ts';
import { effectiveScopes, expectedAuth, implicatedClauses, satisfies } from '../../spec/auth-rules.ts';
import type { Operation } from '../../spec/operations.ts';
import { PROTECTED_OPERATIONS } from '../../spec/operations.ts';

const GENERAL = [
  'auth.missing-scope.403',
  'errors.code.insufficient_scope.403',
  'auth.scope.record-satisfies-read',
  'auth.scope.write-satisfies-read',
  'auth.scope.delete-implies-no-read',
  'auth.scope.delete-implies-no-write',
  'auth.scope.delete-not-implied-by-write',
  'auth.scope.record-not-implied-by-write',
  'auth.scope.write-not-implied-by-record',
  'auth.scope.admin-parses-to-nothing',
  'recording.start.remote.403-not_prearmed',
  'errors.code.not_prearmed.403',
];

/** Operations whose scope is a documented conflict are graded by their own checks; here they count for the general clauses. */
const OWN_CLAUSES = PROTECTED_OPERATIONS.filter((o) => o.alternative === undefined).map((o) => o.scopeClause!);

function describeToken(t: TokenModel): string {
  return `a ${t.kind} ${t.origin} token minted with [${t.requested.join(', ')}] (holding ${effectiveScopes(t).join(', ') || 'no scope'})`;
}

async function probe(ctx: CheckContext, r: ProbeResources, token: TokenModel, bearer: string, op: Operation): Promise<void> {
  const p = probeFor(op, r, token.origin);
  const res = await ctx.as(bearer).request(op.method, p.path, p.options);
  const expected = expectedAuth(op, token);
  const clauses = [...new Set([...(op.alternative === undefined ? [op.scopeClause!] : []), ...implicatedClauses(op, token)])];
  if (clauses.length === 0) clauses.push('auth.missing-scope.403');
  const what = `${op.method} ${op.path} with ${describeToken(token)}`;
  if (expected.kind === 'allowed') {
    if (
      op.alternative !== undefined &&
      res.status === 403 &&
      res.errorCode === 'insufficient_scope' &&
      !satisfies(op.alternative.scope, effectiveScopes(token))
    ) {
      ctx.note(
        `${what}: 403 insufficient_scope, as the alternative reading (${op.alternative.scope}) of ${op.alternative.clause} says; graded by that clause's own check`,
      );
      return;
    }
    ctx.expect(clauses, what, x.notAuthRefused(res), res);
    return;
  }
  let codes = [expected.code];
  // A remote caller without record on POST /v1/recording/start meets two rules whose order the spec leaves open.
  if (op.path === '/v1/recording/start' && token.origin !== 'loopback') codes = ['insufficient_scope', 'not_prearmed'];
  const extra = expected.code === 'not_prearmed' ? ['recording.start.remote.403-not_prearmed', 'errors.code.not_prearmed.403'] : [];
  ctx.expect([...new Set([...clauses, ...extra])], what, x.error(res, expected.status, codes), res);
}

export const check = defineCheck({
  id: 'auth/scope-matrix',
  clauses: [...GENERAL, ...OWN_CLAUSES],
  level: 'requirement',
  needs: ['tokens', 'meeting'],
  description:
    'Every operation of the endpoint tables is called with tokens of every single scope, none, ' +
    'and (a fast-check property) random scope sets × origin (loopback, paired, LAN) × kind ' +
    '(standard, first-party, assistant); the answer is a 403 insufficient_scope exactly when ' +
    'API.md’s scope rules say the token falls short, 403 not_prearmed for a remote recording ' +
    'start, and otherwise gets past the gates.',
  requirement: 'A recognized token whose scopes do not cover the route is refused with 403 insufficient_scope, never 401.',
  timeoutMs: 300_000,
  async run(ctx) {
    const resources = await setupProbes(ctx);
    // 1. The table: each single scope, no scope, and the special origins and kinds, on every operation.
    const table: TokenModel[] = [
      ...[['read'], ['record'], ['write'], ['delete'], ['admin']].map((requested) => ({
        requested,
        origin: 'loopback' as const,
        kind: 'standard' as const,
      })),
      { requested: ['read', 'record', 'write', 'delete'], origin: 'paired', kind: 'standard' },
      { requested: ['record'], origin: 'lan', kind: 'standard' },
      { requested: ['write'], origin: 'loopback', kind: 'assistant' },
    ];
    for (const token of table) {
      const bearer = (await ctx.mint({ scopes: token.requested, origin: token.origin, kind: token.kind })).token;
      for (const op of PROTECTED_OPERATIONS) await probe(ctx, resources, token, bearer, op);
    }
    // 2. The property: random tokens on random operations. Without a Control API to mint any token, the
    //    random tokens are drawn from the ones handed to the run (--token, --tokens).
    const pooled: TokenModel[] = (ctx.has('tokens') ? [] : (ctx.env.tokenPool?.tokens ?? []))
      .filter((t) => t.scopesKnown !== false)
      .map((t) => ({ requested: t.scopes, origin: t.origin, kind: t.kind }));
    await ctx.property(
      'random tokens × operations',
      fc.record({
        token: ctx.has('tokens') ? tokenArbitrary : fc.constantFrom(...pooled),
        ops: fc.subarray([...PROTECTED_OPERATIONS], { minLength: 1, maxLength: 4 }),
      }),
      async ({ token, ops }) => {
        const bearer = (await ctx.mint({ scopes: token.requested, origin: token.origin, kind: token.kind })).token;
        for (const op of ops) await probe(ctx, resources, token, bearer, op);
      },
    );
  },
});
