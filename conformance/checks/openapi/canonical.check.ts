import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { manifestOperations } from '../../harness/manifest.ts';
import { probeFor, setupProbes } from '../../harness/probes.ts';
import { satisfies } from '../../spec/auth-rules.ts';
import { SCOPES, type Scope } from '../../spec/constants.ts';
import type { OperationScope } from '../../spec/operations.ts';
import { PROTECTED_OPERATIONS, routeKey } from '../../spec/operations.ts';

/** Reads x-service-required-scope: a scope name, or a list holding one. */
export function annotatedScope(value: unknown): OperationScope | null {
  const v: unknown = Array.isArray(value) && value.length === 1 ? (value as unknown[])[0] : value;
  if (v === null || v === 'none' || (Array.isArray(v) && v.length === 0)) return 'none';
  return typeof v === 'string' && (SCOPES as readonly string[]).includes(v) ? (v as OperationScope) : null;
}

export const check = defineCheck({
  id: 'openapi/canonical',
  clauses: ['openapi.canonical'],
  level: 'requirement',
  // 'recorder': its granted probes of POST /v1/recording/stop, pause and resume act on a recording beside it.
  touches: 'recorder',
  needs: ['tokens', 'meeting'],
  description:
    'For every operation of the endpoint tables, the scope the target enforces (probed with ' +
    'single-scope tokens) is the one its manifest states in x-service-required-scope.',
  requirement:
    'The manifest is the canonical route description and wins over prose, so the enforced ' +
    "behaviour (e.g. minimum scope per operation) must agree with the manifest's own " +
    'annotations.',
  timeoutMs: 120_000,
  async run(ctx) {
    const res = await ctx.as(await ctx.token(['read'])).get('/openapi.json');
    ctx.require('openapi.canonical', 'GET /openapi.json', x.all(x.status(res, 200), x.json(res)), res);
    const manifest = new Map(manifestOperations(res.body).map((o) => [o.key, o]));
    const resources = await setupProbes(ctx);
    const tokens: Array<[Scope[], string]> = [];
    for (const scopes of [['read'], ['record'], ['write'], ['delete'], []] as Scope[][]) {
      tokens.push([scopes, (await ctx.mint({ scopes: scopes.length === 0 ? ['admin'] : scopes })).token]);
    }
    for (const op of PROTECTED_OPERATIONS) {
      const m = manifest.get(routeKey(op.method, op.path));
      if (m === undefined) continue; // openapi/covers-every-route reports it
      const declared = annotatedScope(m.operation['x-service-required-scope']);
      if (
        !ctx.expect(
          'openapi.canonical',
          `x-service-required-scope of ${op.method} ${op.path}`,
          x.that(declared !== null, 'one of none, read, record, write, delete', x.show(m.operation['x-service-required-scope'])),
          res,
        )
      )
        continue;
      if (declared !== op.scope) ctx.note(`${op.method} ${op.path}: the manifest states ${declared}; API.md's table states ${op.scope}`);
      const probe = probeFor(op, resources);
      for (const [scopes, token] of tokens) {
        const r = await ctx.as(token).request(op.method, probe.path, probe.options);
        const allowed = satisfies(declared!, scopes);
        const label = `${op.method} ${op.path} with ${scopes.join('+') || 'no'} scope (manifest: ${declared})`;
        ctx.expect('openapi.canonical', label, allowed ? x.notAuthRefused(r) : x.error(r, 403, 'insufficient_scope'), r);
      }
    }
  },
});
