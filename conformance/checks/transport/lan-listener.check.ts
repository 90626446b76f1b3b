import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { ALL_INTERFACES_PROBE_HOST, allInterfacesObservable, httpsGet, recordProbe } from '../../harness/sockets.ts';

export const check = defineCheck({
  id: 'transport/lan-listener',
  clauses: ['transport.lan.all-interfaces-8421-tls'],
  level: 'requirement',
  needs: ['settings', 'restart'],
  description:
    'With lan_enabled on and a restart: https://127.0.0.2:8421/health (which only a listener on ' +
    'all interfaces answers; loopback alone, never another address) and ' +
    'https://<--lan-host>:8421/health when given answer 200 with a self-signed certificate, and ' +
    'the loopback listener still serves plain HTTP.',
  requirement:
    'With LAN access explicitly enabled the service additionally listens on 0.0.0.0 port 8421 ' +
    'over HTTPS with a self-signed certificate, alongside the loopback listener.',
  async run(ctx) {
    // Traffic goes to loopback, or to the one address the user named: never to an address found on this machine's interfaces.
    const hosts: string[] = [];
    const lanHost = ctx.env.lanHost;
    if (lanHost !== undefined) hosts.push(lanHost);
    if (ctx.env.local) {
      const why = await allInterfacesObservable();
      if (why === null) hosts.push(ALL_INTERFACES_PROBE_HOST);
      else if (hosts.length === 0) return ctx.skip(why);
      else ctx.note(why);
    } else if (hosts.length === 0) {
      return ctx.skip('the target is not on this machine: give --lan-host with the address its LAN listener serves');
    }
    await ctx.control.patchSettings({ lan_enabled: true });
    try {
      await ctx.control.restart();
      for (const address of hosts) {
        const probe = await httpsGet(address, 8421, '/health');
        recordProbe(
          ctx,
          `GET https://${address}:8421/health`,
          `https://${address}:8421/health`,
          probe.error ?? `${probe.status} ${probe.body.slice(0, 200)}`,
          `curl -k -sS -i https://${address}:8421/health`,
        );
        ctx.expect(
          'transport.lan.all-interfaces-8421-tls',
          `GET https://${address}:8421/health with LAN access on`,
          x.that(
            probe.status === 200,
            '200 over HTTPS',
            probe.error === undefined ? `${probe.status} ${probe.body.slice(0, 120)}` : `no TLS answer: ${probe.error}`,
          ),
        );
        if (probe.status !== 0) {
          ctx.expect(
            'transport.lan.all-interfaces-8421-tls',
            `certificate of https://${address}:8421`,
            x.that(
              probe.selfSigned === true,
              'a self-signed certificate',
              `subject ${probe.subject ?? '?'}, issuer ${probe.issuer ?? '?'}${probe.authorizationError === undefined ? '' : `, ${probe.authorizationError}`}`,
            ),
          );
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
