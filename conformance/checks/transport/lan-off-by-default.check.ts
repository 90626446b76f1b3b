import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { ALL_INTERFACES_PROBE_HOST, allInterfacesObservable, httpsGet, recordProbe, tcpConnect } from '../../harness/sockets.ts';

export const check = defineCheck({
  id: 'transport/lan-off-by-default',
  clauses: ['transport.lan.off-by-default'],
  level: 'requirement',
  needs: [],
  description:
    'With LAN access off (read through the Control API; without it, what is seen is graded only ' +
    'when nothing answers, else SKIPPED): nothing of the service answers on port 8421, and the ' +
    'target’s port does not answer on 127.0.0.2 (which a listener on all interfaces would; ' +
    'loopback alone, never another address) nor on --lan-host when given.',
  requirement: 'Unless LAN access is explicitly enabled, nothing is served on port 8421 or on any non-loopback interface.',
  async run(ctx) {
    // Without the Control API the switch cannot be read: what is observed is graded only when nothing of the
    // service answers; something that does may be LAN access switched on (the premise), so it is SKIPPED then.
    const knownOff = ctx.has('settings');
    if (knownOff && (await ctx.control.settings()).lan_enabled)
      return ctx.skip('LAN access is enabled on the target (reset it, or give the Control API reset capability)');
    const base = new URL(ctx.env.baseUrl);
    const port = Number(base.port || (base.protocol === 'https:' ? 443 : 80));
    // Traffic goes to loopback, or to the one address the user named: never to an address found on this machine's interfaces.
    const hosts: string[] = [];
    if (ctx.env.local) {
      hosts.push('127.0.0.1');
      const why = await allInterfacesObservable();
      if (why === null && base.hostname !== ALL_INTERFACES_PROBE_HOST) hosts.push(ALL_INTERFACES_PROBE_HOST);
      else if (why !== null) ctx.note(`not observed: the service on all interfaces (${why})`);
    }
    if (ctx.env.lanHost !== undefined) hosts.push(ctx.env.lanHost);
    if (hosts.length === 0) return ctx.skip('the target is not on this machine: give --lan-host with an address of its machine to probe');
    for (const host of hosts) {
      const lan = await tcpConnect(host, 8421);
      recordProbe(ctx, `TCP connect ${host}:8421`, `tcp://${host}:8421`, lan, `curl -k -sS -i https://${host}:8421/health`);
      if (lan === 'connected') {
        const probe = await httpsGet(host, 8421, '/health');
        const looksLikeService = probe.status === 200 && /fail_open_total|events_dropped/.test(probe.body);
        if (looksLikeService && !knownOff)
          return ctx.skip(
            `the service answers on ${host}:8421, and without the Control API's settings the suite cannot tell whether LAN access is switched on there`,
          );
        ctx.expect(
          'transport.lan.off-by-default',
          `something listens on ${host}:8421: is it the service?`,
          x.that(
            !looksLikeService,
            'port 8421 not served by the service while LAN access is off',
            `https://${host}:8421/health → ${probe.status} ${probe.body.slice(0, 120)}`,
          ),
        );
        if (!looksLikeService) ctx.note(`port 8421 on ${host} is in use by something that does not answer as the service`);
      }
      if (host === '127.0.0.1' || host === base.hostname) continue;
      const r = await tcpConnect(host, port);
      recordProbe(ctx, `TCP connect ${host}:${port}`, `tcp://${host}:${port}`, r, `curl -sS -i http://${host}:${port}/health`);
      if (r === 'connected' && !knownOff)
        return ctx.skip(
          `the target’s port answers on ${host}, and without the Control API's settings the suite cannot tell whether LAN access is switched on`,
        );
      const what =
        host === ALL_INTERFACES_PROBE_HOST
          ? `connect to the target’s port ${port} on ${host} (answered only by a listener on all interfaces)`
          : `connect to the target’s port ${port} on ${host} (--lan-host)`;
      ctx.expect(
        'transport.lan.off-by-default',
        what,
        x.that(r !== 'connected', 'connection refused (the service listens on loopback only)', r),
      );
    }
  },
});
