import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'auth/assistant-baseline',
  clauses: ['auth.assistant-token.baseline-record'],
  level: 'requirement',
  needs: ['tokens'],
  description:
    'An assistant token asked for with [] or ["write"] holds read and record (whoami), and gets ' +
    'past the scope gate of POST /v1/recording/start.',
  requirement: 'A per-client assistant token is issued with a baseline scope set that includes record alongside read.',
  async run(ctx) {
    for (const requested of [[], ['write']]) {
      const minted = await ctx.mintFresh({ scopes: requested, kind: 'assistant' });
      const who = await ctx.as(minted.token).get('/v1/whoami');
      const scopes = (who.body as { scopes?: unknown } | undefined)?.scopes;
      const ok = Array.isArray(scopes) && scopes.includes('read') && scopes.includes('record');
      ctx.expect(
        'auth.assistant-token.baseline-record',
        `whoami of an assistant token asked for with [${requested.join(', ')}]`,
        x.all(x.status(who, 200), x.that(ok, 'scopes ⊇ {read, record}', `scopes = ${x.show(scopes)}`)),
        who,
      );
      // consent_attested false: refused by the handler (400), never by the scope gate; nothing records.
      const start = await ctx.as(minted.token).post('/v1/recording/start', { json: { consent_attested: false } });
      ctx.expect(
        'auth.assistant-token.baseline-record',
        `POST /v1/recording/start with an assistant token asked for with [${requested.join(', ')}]`,
        x.notAuthRefused(start),
        start,
      );
    }
  },
});
