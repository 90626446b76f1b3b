import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { pollPath } from '../../harness/pairing.ts';

/** The raw token in a poll answer, found by value (its field name is a gap). */
function tokenIn(body: unknown): string | null {
  if (body === null || typeof body !== 'object') return null;
  const b = body as Record<string, unknown>;
  for (const k of ['token', 'access_token', 'api_token', 'raw_token']) if (typeof b[k] === 'string' && b[k].length > 0) return b[k];
  return null;
}

export const check = defineCheck({
  id: 'pairing/token-once',
  clauses: ['pairing.poll.token-once', 'pairing.token.never-delete'],
  level: 'requirement',
  needs: ['pairings'],
  description:
    'Requests a pairing asking read, record and delete, approves it (Control API, once with the ' +
    'asked scopes and once asking delete explicitly): the first poll after approval returns the ' +
    'raw token, later polls do not; the token works and its whoami scopes lack delete.',
  requirement: 'After the pairing is approved, the poll returns the raw token exactly once, and later polls no longer return it.',
  async run(ctx) {
    for (const approveWith of [undefined, ['read', 'record', 'delete']]) {
      const req = await ctx.api.post('/v1/pair/request', {
        json: { client_name: `Conformance ${ctx.fixtures.word(6)}`, scopes: ['read', 'record', 'delete'] },
      });
      if (!req.ok) return ctx.skip(`POST /v1/pair/request answered ${req.describe(120)} (pairing/request-no-auth reports it)`);
      const path = pollPath(req);
      if (path === null) return ctx.skip(`cannot find the pairing id in the answer (its shape is a gap): ${req.describe(200)}`);
      const id = decodeURIComponent(path.split('/').pop()!);
      await ctx.control.approvePairing(id, approveWith);
      const first = await ctx.api.get(path);
      const token = tokenIn(first.body);
      ctx.require(
        'pairing.poll.token-once',
        `GET ${path}: first poll after approval${approveWith === undefined ? '' : ' (approved asking delete)'}`,
        x.that(first.ok && token !== null, 'the raw token', first.describe(200)),
        first,
      );
      for (let i = 0; i < 2; i++) {
        const again = await ctx.api.get(path);
        const leaked = tokenIn(again.body) ?? (x.containsString(again.body, token!) ? token : null);
        ctx.expect(
          'pairing.poll.token-once',
          `GET ${path}: poll ${i + 2} after approval`,
          x.that(leaked === null && again.status !== 0, 'no raw token any more', again.describe(200)),
          again,
        );
      }
      const who = await ctx.api.get('/v1/whoami', { token: token! });
      const scopes = (who.body as { scopes?: unknown } | undefined)?.scopes;
      ctx.expect(
        'pairing.token.never-delete',
        'GET /v1/whoami with the paired token',
        x.that(who.status === 200 && Array.isArray(scopes) && !scopes.includes('delete'), 'scopes without delete', who.describe(200)),
        who,
      );
      const del = await ctx.api.delete(`/v1/meetings/00000000-0000-4000-8000-000000000000`, { token: token! });
      ctx.expect(
        'pairing.token.never-delete',
        'DELETE /v1/meetings/{id} with the paired token',
        x.error(del, 403, 'insufficient_scope'),
        del,
      );
    }
  },
});
