import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'webhooks/allowlist',
  clauses: ['webhooks.allowlist.read-at-startup', 'webhooks.create.url.never-allowed-even-allowlisted'],
  level: 'requirement',
  needs: ['settings', 'restart', 'tokens'],
  description:
    'Adds a loopback host:port to local_webhook_targets (Control API): registration to it stays ' +
    '400 until a restart, then 201; metadata, link-local, unspecified and multicast host:ports ' +
    'added to the allowlist stay 400 after the restart.',
  requirement: 'The allowlist is loaded only at startup, so a target added later is honoured only after the application restarts.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    const port = 20_000 + ((ctx.seed >>> 0) % 20_000);
    const target = `127.0.0.1:${port}`;
    const never = ['169.254.169.254:80', '169.254.1.1:8080', '0.0.0.0:8420', '224.0.0.1:9000'];
    await ctx.control.patchSettings({ local_webhook_targets: [target, ...never] });
    const before = await api.post('/v1/webhooks', { json: { url: `http://${target}/hook`, events: ['job.completed'] } });
    ctx.expect(
      'webhooks.allowlist.read-at-startup',
      `POST /v1/webhooks http://${target}/hook, added but not restarted`,
      x.error(before, 400),
      before,
    );
    await ctx.control.restart();
    const after = await api.post('/v1/webhooks', { json: { url: `http://${target}/hook`, events: ['job.completed'] } });
    if (after.status === 400)
      ctx.note(
        'the allowlisted loopback target is refused after the restart as well: webhooks/allowlisted-ok grades that reading (NON_STRICT)',
      );
    else
      ctx.expect(
        'webhooks.allowlist.read-at-startup',
        `POST /v1/webhooks http://${target}/hook after the restart`,
        x.status(after, 201),
        after,
      );
    for (const hp of never) {
      const r = await api.post('/v1/webhooks', { json: { url: `http://${hp}/hook`, events: ['job.completed'] } });
      ctx.expect(
        'webhooks.create.url.never-allowed-even-allowlisted',
        `POST /v1/webhooks http://${hp}/hook (allowlisted, restarted)`,
        x.error(r, 400),
        r,
      );
    }
  },
});
