import fc from 'fast-check';
import { CLAUSE_OF, HOSTILE, urlOf } from '../../harness/addresses.ts';
import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'webhooks/url-hostile',
  clauses: [
    'webhooks.create.url.private.400',
    'webhooks.create.url.link-local.400',
    'webhooks.create.url.metadata.400',
    'webhooks.create.url.unspecified.400',
    'webhooks.create.url.multicast.400',
  ],
  level: 'requirement',
  touches: 'own',
  needs: ['token'],
  description:
    'A property over hostile spellings (decimal, hex, octal, short IPv4, IPv4-mapped IPv6, ' +
    'upper case, ports, paths) of loopback, private, link-local, metadata, unspecified and ' +
    'multicast addresses, with the allowlist empty (after a reset): each registration is ' +
    'refused with 400 and the error envelope.',
  requirement:
    'A url whose host is, or resolves by a best-effort DNS check to, a loopback or private ' +
    'address whose host:port is not on the Local webhook targets allowlist is refused with 400 ' +
    'at registration.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    const examples = [
      { url: 'http://127.0.0.1:9/', category: 'loopback' as const, canonical: '127.0.0.1' },
      { url: 'http://localhost/', category: 'loopback' as const, canonical: 'localhost' },
      { url: 'http://169.254.169.254/latest/meta-data/', category: 'metadata' as const, canonical: '169.254.169.254' },
      { url: 'http://2130706433/', category: 'loopback' as const, canonical: '127.0.0.1' },
      { url: 'http://[::ffff:127.0.0.1]/', category: 'loopback' as const, canonical: '[::ffff:7f00:1]' },
      { url: 'http://0.0.0.0/', category: 'unspecified' as const, canonical: '0.0.0.0' },
      { url: 'http://[fe80::1]/', category: 'link_local' as const, canonical: '[fe80::1]' },
      { url: 'http://224.0.0.1/', category: 'multicast' as const, canonical: '224.0.0.1' },
    ];
    await ctx.property(
      'hostile destinations',
      fc.oneof(...HOSTILE.map((c) => urlOf(c))),
      async ({ url, category, canonical }) => {
        const res = await api.post('/v1/webhooks', { json: { url, events: ['job.completed'] } });
        ctx.expect(
          CLAUSE_OF[category as Exclude<typeof category, 'public'>],
          `POST /v1/webhooks url ${url} (${category}, host ${canonical})`,
          x.error(res, 400),
          res,
        );
      },
      { runs: ctx.runs(1), examples },
    );
  },
});
