import { defineCheck } from '../../harness/check.ts';

export const check = defineCheck({
  id: 'auth/token-lifecycle',
  clauses: ['auth.token-lifecycle.gap'],
  level: 'gap',
  touches: 'own',
  needs: ['tokens'],
  description: 'Records how the target’s tokens look and live: the form of a minted token and its id, and what a deleted or switched-off token gets.',
  requirement:
    'How tokens are created outside pairing, how a pairing is approved and how long tokens remain valid are not shown and are implementation-defined.',
  async run(ctx) {
    const minted = await ctx.mintFresh({ scopes: ['read'] });
    const shape = (s: string): string => `${s.length} characters, ${/^[A-Za-z0-9_-]+$/.test(s) ? 'URL-safe' : 'other characters'}${/^[a-z]+_/.test(s) ? `, prefix "${s.split('_')[0]}_"` : ''}`;
    ctx.observe('auth.token-lifecycle.gap', 'minted token', shape(minted.token));
    ctx.observe('auth.token-lifecycle.gap', 'token id', `${shape(minted.token_id)}; equal to the token: ${minted.token_id === minted.token}`);
    const who = await ctx.as(minted.token).get('/v1/whoami');
    ctx.observe('auth.token-lifecycle.gap', 'whoami right after minting', who.describe(200), who);
    await ctx.control.setTokenEnabled(minted.token_id, false);
    const off = await ctx.as(minted.token).get('/v1/whoami');
    ctx.observe('auth.token-lifecycle.gap', 'whoami with the token switched off', off.describe(200), off);
    await ctx.control.deleteToken(minted.token_id);
    const gone = await ctx.as(minted.token).get('/v1/whoami');
    ctx.observe('auth.token-lifecycle.gap', 'whoami with the token deleted', gone.describe(200), gone);
  },
});
