import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { fetchManifest, manifestOperations } from '../../harness/manifest.ts';
import { REMOVED_ROUTES, fillPath, routeKey } from '../../spec/operations.ts';

export const check = defineCheck({
  id: 'pairing/removed-routes-absent',
  clauses: ['pairing.removed-routes.absent'],
  level: 'requirement',
  needs: ['token'],
  description:
    'GET /v1/pairings, GET and DELETE /v1/pairings/{id} and POST /v1/mcp/client-token answer ' +
    '404 not_found even with every scope, and are absent from the manifest.',
  requirement:
    '/v1/pairings, /v1/pairings/{id} and /v1/mcp/client-token are not part of the HTTP surface, ' +
    'since listing or revoking pairings and minting assistant tokens happen inside the ' +
    'application.',
  async run(ctx) {
    const api = ctx.as(await ctx.token());
    for (const r of REMOVED_ROUTES) {
      const path = fillPath(r.path, { id: '00000000-0000-4000-8000-000000000000' });
      const res = await api.request(r.method, path, r.method === 'POST' ? { json: {} } : {});
      ctx.expect(
        'pairing.removed-routes.absent',
        `${r.method} ${r.path} with a token holding every scope`,
        x.error(res, 404, 'not_found'),
        res,
      );
    }
    const doc = await fetchManifest(ctx, api.token);
    if (doc !== null) {
      const listed = new Set(manifestOperations(doc).map((o) => o.key));
      const present = REMOVED_ROUTES.filter((r) => listed.has(routeKey(r.method, r.path)));
      ctx.expect(
        'pairing.removed-routes.absent',
        'the removed routes in /openapi.json',
        x.that(present.length === 0, 'none of them', present.map((r) => `${r.method} ${r.path}`).join(', ') || 'none'),
      );
      const anyPairings = [...listed].filter((k) => /\/v1\/(pairings|mcp)\b/.test(k));
      ctx.expect(
        'pairing.removed-routes.absent',
        'operations under /v1/pairings or /v1/mcp in /openapi.json',
        x.that(anyPairings.length === 0, 'none', anyPairings.join(', ') || 'none'),
      );
    }
  },
});
