import { urlOf } from '../../harness/addresses.ts';
import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'webhooks/url-public',
  clauses: ['webhooks.create.url.public-ok', 'webhooks.create.url.scheme'],
  level: 'requirement',
  touches: 'own',
  needs: ['token'],
  description:
    'A property over public IP literals in several spellings (no DNS needed): each registration ' +
    'answers 201; ftp://, file://, gopher://, javascript:, scheme-relative and bare-host urls ' +
    'are refused with a 4xx envelope.',
  requirement: 'A url whose host resolves to a public address is accepted.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    await ctx.property(
      'public destinations',
      urlOf('public'),
      async ({ url, canonical }) => {
        const res = await api.post('/v1/webhooks', { json: { url, events: ['job.completed'] } });
        ctx.expect('webhooks.create.url.public-ok', `POST /v1/webhooks url ${url} (public, host ${canonical})`, x.status(res, 201), res);
        const id = (res.body as { id?: unknown } | undefined)?.id;
        if (typeof id === 'string') await api.delete(`/v1/webhooks/${id}`, { label: 'clean up' });
      },
      { runs: ctx.runs(0.4), examples: [{ url: 'https://93.184.216.34/hooks/meetings', category: 'public', canonical: '93.184.216.34' }] },
    );
    for (const url of [
      'ftp://93.184.216.34/',
      'file:///etc/passwd',
      'gopher://93.184.216.34:70/',
      'javascript:alert(1)',
      '//93.184.216.34/hook',
      '93.184.216.34/hook',
      'ws://93.184.216.34/',
    ]) {
      const res = await api.post('/v1/webhooks', { json: { url, events: ['job.completed'] } });
      ctx.expect('webhooks.create.url.scheme', `POST /v1/webhooks url ${url}`, x.refused(res, 400), res);
    }
  },
});
