import { defineCheck } from '../../harness/check.ts';

export const check = defineCheck({
  id: 'auth/token-lifecycle',
  clauses: ['auth.token-lifecycle.gap'],
  level: 'gap',
  touches: 'own',
  needs: ['token'],
  description:
    'Records how the target’s tokens look and live: the form of a minted token and its id, and ' +
    'what a deleted or switched-off token gets. Without the Control API’s tokens: the form of ' +
    'the token the run was given and its id as whoami reports it (switching off and deleting ' +
    'need the Control API).',
  requirement:
    'How tokens are created outside pairing, how a pairing is approved and how long tokens ' +
    'remain valid are not shown and are implementation-defined.',
  async run(ctx) {
    const shape = (s: string): string =>
      `${s.length} characters, ${/^[A-Za-z0-9_-]+$/.test(s) ? 'URL-safe' : 'other characters'}${/^[a-z]+_/.test(s) ? `, prefix "${s.split('_')[0]}_"` : ''}`;
    if (!ctx.has('tokens')) {
      const token = await ctx.token(['read']);
      ctx.observe('auth.token-lifecycle.gap', 'the token given to the run', shape(token));
      const who = await ctx.as(token).get('/v1/whoami');
      const id = (who.body as { token_id?: unknown } | undefined)?.token_id;
      ctx.observe(
        'auth.token-lifecycle.gap',
        'its token id (whoami)',
        typeof id === 'string' ? `${shape(id)}; equal to the token: ${id === token}` : who.describe(200),
        who,
      );
      ctx.note('not observed: a switched-off or deleted token (the Control API’s tokens capability creates and removes them)');
      return;
    }
    const minted = await ctx.mintFresh({ scopes: ['read'] });
    ctx.observe('auth.token-lifecycle.gap', 'minted token', shape(minted.token));
    ctx.observe(
      'auth.token-lifecycle.gap',
      'token id',
      `${shape(minted.token_id)}; equal to the token: ${minted.token_id === minted.token}`,
    );
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
