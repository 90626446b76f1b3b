import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { httpsGet, lanAddresses, recordProbe } from '../../harness/sockets.ts';

export const check = defineCheck({
  id: 'transport/lan-listener',
  clauses: ['transport.lan.all-interfaces-8421-tls'],
  level: 'requirement',
  needs: ['local', 'settings', 'restart'],
  description: 'With lan_enabled on and a restart: https://<lan address>:8421/health answers 200 with a self-signed certificate, and the loopback listener still serves plain HTTP.',
  requirement:
    'With LAN access explicitly enabled the service additionally listens on 0.0.0.0 port 8421 over HTTPS with a self-signed certificate, alongside the loopback listener.',
  async run(ctx) {
    const addresses = lanAddresses();
    if (addresses.length === 0) return ctx.skip('this machine has no non-loopback IPv4 address to reach a LAN listener on');
    await ctx.control.patchSettings({ lan_enabled: true });
    try {
      await ctx.control.restart();
      for (const address of addresses) {
        const probe = await httpsGet(address, 8421, '/health');
        recordProbe(ctx, `GET https://${address}:8421/health`, `https://${address}:8421/health`, probe.error ?? `${probe.status} ${probe.body.slice(0, 200)}`, `curl -k -sS -i https://${address}:8421/health`);
        ctx.expect('transport.lan.all-interfaces-8421-tls', `GET https://${address}:8421/health with LAN access on`, x.that(probe.status === 200, '200 over HTTPS', probe.error === undefined ? `${probe.status} ${probe.body.slice(0, 120)}` : `no TLS answer: ${probe.error}`));
        if (probe.status !== 0) {
          ctx.expect('transport.lan.all-interfaces-8421-tls', `certificate of https://${address}:8421`, x.that(probe.selfSigned === true, 'a self-signed certificate', `subject ${probe.subject ?? '?'}, issuer ${probe.issuer ?? '?'}${probe.authorizationError === undefined ? '' : `, ${probe.authorizationError}`}`));
        }
      }
      const loop = await ctx.api.get('/health');
      ctx.expect('transport.lan.all-interfaces-8421-tls', 'the loopback listener with LAN access on', x.status(loop, 200), loop);
    } finally {
      await ctx.control.patchSettings({ lan_enabled: false });
      await ctx.control.restart();
    }
  },
});
