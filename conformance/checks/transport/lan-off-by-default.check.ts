import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { httpsGet, lanAddresses, recordProbe, tcpConnect } from '../../harness/sockets.ts';

export const check = defineCheck({
  id: 'transport/lan-off-by-default',
  clauses: ['transport.lan.off-by-default'],
  level: 'requirement',
  needs: ['local', 'settings'],
  description: 'With LAN access off: nothing of the service answers on port 8421, nor on the target’s port at this machine’s non-loopback addresses.',
  requirement:
    'Unless LAN access is explicitly enabled, nothing is served on port 8421 or on any non-loopback interface.',
  async run(ctx) {
    const settings = await ctx.control.settings();
    if (settings.lan_enabled) return ctx.skip('LAN access is enabled on the target (reset it, or give the Control API reset capability)');
    const port = Number(new URL(ctx.env.baseUrl).port || 80);
    const lan = await tcpConnect('127.0.0.1', 8421);
    recordProbe(ctx, 'TCP connect 127.0.0.1:8421', 'tcp://127.0.0.1:8421', lan, 'curl -k -sS -i https://127.0.0.1:8421/health');
    if (lan === 'connected') {
      const probe = await httpsGet('127.0.0.1', 8421, '/health');
      const looksLikeService = probe.status === 200 && /fail_open_total|events_dropped/.test(probe.body);
      ctx.expect('transport.lan.off-by-default', 'something listens on 127.0.0.1:8421: is it the service?', x.that(!looksLikeService, 'port 8421 not served by the service while LAN access is off', `https://127.0.0.1:8421/health → ${probe.status} ${probe.body.slice(0, 120)}`));
      if (!looksLikeService) ctx.note('port 8421 is in use on this machine by something that does not answer as the service');
    }
    for (const address of lanAddresses()) {
      const r = await tcpConnect(address, port);
      recordProbe(ctx, `TCP connect ${address}:${port}`, `tcp://${address}:${port}`, r, `curl -sS -i http://${address}:${port}/health`);
      ctx.expect('transport.lan.off-by-default', `connect to the target’s port ${port} on the non-loopback address ${address}`, x.that(r !== 'connected', 'connection refused (the service listens on loopback only)', r));
    }
  },
});
