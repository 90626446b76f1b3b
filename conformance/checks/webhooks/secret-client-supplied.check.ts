import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { allowReceiver, signatureHolds } from '../../harness/webhooks.ts';

const SUPPLIED = 'my-own_secret.value!#$%&()*+,/:;<=>?@[]^`{|}~';

export const check = defineCheck({
  id: 'webhooks/secret-client-supplied',
  clauses: ['webhooks.create.secret.client-supplied'],
  level: 'conflict',
  touches: 'own',
  needs: ['receiver', 'settings', 'restart', 'webhook-approval', 'tokens'],
  timeoutMs: 60_000,
  description:
    'Registers a webhook to the receiver with "secret": a test delivery signed with the ' +
    'supplied secret (returned as hmac_secret), or the secret ignored/refused and the generated ' +
    'hmac_secret signing, both conform; anything else fails.',
  requirement:
    'One reference describes an optional secret field in the create request while the main ' +
    'request description has none, and the spec does not choose.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    const endpoint = await ctx.endpoint('secret');
    await allowReceiver(ctx, endpoint);
    const r = await api.post('/v1/webhooks', { json: { url: endpoint.url, events: ['job.completed'], secret: SUPPLIED } });
    if (r.status >= 400 && r.status < 500) {
      ctx.conflict('webhooks.create.secret.client-supplied', 'POST /v1/webhooks with a secret', 1, `refused: ${r.describe(150)}`, r);
      return;
    }
    ctx.require('webhooks.create.secret.client-supplied', 'POST /v1/webhooks with a secret', x.status(r, 201), r);
    const b = r.body as { id: string; hmac_secret?: string };
    await ctx.control.setWebhookApproval(b.id, 'allowed');
    await api.post(`/v1/webhooks/${b.id}/test`);
    const ds = await endpoint.waitFor(1, 10_000);
    if (ds.length === 0) return ctx.skip('no test delivery arrived (webhooks/delivery-basics reports it)');
    const d = ds[0]!;
    const bySupplied = signatureHolds(d, SUPPLIED);
    const byReturned = typeof b.hmac_secret === 'string' && signatureHolds(d, b.hmac_secret);
    let matched: number | null = null;
    if (bySupplied && b.hmac_secret === SUPPLIED) matched = 0;
    else if (byReturned && b.hmac_secret !== SUPPLIED) matched = 1;
    ctx.conflict(
      'webhooks.create.secret.client-supplied',
      'the signature of a test delivery',
      matched,
      `signed with the supplied secret: ${bySupplied}; with the returned hmac_secret: ${byReturned}; hmac_secret ${b.hmac_secret === SUPPLIED ? 'is the supplied one' : 'differs'}`,
    );
  },
});
