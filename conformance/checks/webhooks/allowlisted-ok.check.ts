import { defineCheck } from '../../harness/check.ts';

export const check = defineCheck({
  id: 'webhooks/allowlisted-ok',
  clauses: ['webhooks.create.url.allowlisted-ok'],
  level: 'conflict',
  needs: ['settings', 'restart', 'tokens'],
  description:
    'With 127.0.0.1:<port> and 10.1.2.3:8080 on local_webhook_targets and a restart, ' +
    'registrations to them answer 201 (the spec) or 400 (always refused: NON_STRICT).',
  requirement:
    'A loopback or private host:port on the Local webhook targets allowlist is accepted, which ' +
    'the spec chooses over one reference saying loopback and private addresses are always ' +
    'refused.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    const port = 20_000 + ((ctx.seed >>> 0) % 20_000);
    await ctx.control.patchSettings({ local_webhook_targets: [`127.0.0.1:${port}`, '10.1.2.3:8080'] });
    await ctx.control.restart();
    for (const url of [`http://127.0.0.1:${port}/hook`, 'http://10.1.2.3:8080/hook']) {
      const r = await api.post('/v1/webhooks', { json: { url, events: ['job.completed'] } });
      ctx.conflict(
        'webhooks.create.url.allowlisted-ok',
        `POST /v1/webhooks ${url} (allowlisted, restarted)`,
        r.status === 201 ? 0 : r.status === 400 ? 1 : null,
        r.describe(150),
        r,
      );
    }
  },
});
