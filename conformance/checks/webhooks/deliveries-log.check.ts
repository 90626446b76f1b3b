import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { envelopeOf, hookTo, logEntries } from '../../harness/webhooks.ts';

export const check = defineCheck({
  id: 'webhooks/deliveries-log',
  clauses: ['webhooks.deliveries.recent-100'],
  level: 'requirement',
  touches: 'own',
  needs: ['receiver', 'settings', 'restart', 'webhook-approval', 'tokens'],
  timeoutMs: 90_000,
  description:
    'Sends 105 test deliveries to an approved webhook: GET …/deliveries holds at most 100 ' +
    'entries, and (when entries carry the delivery_id) the newest delivery is in it and the ' +
    'first is not.',
  requirement: 'GET /v1/webhooks/{id}/deliveries returns at most the 100 most recent delivery-log entries.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    const { endpoint, hook } = await hookTo(ctx, api, 'log', ['job.completed'], { status: 204 });
    for (let i = 0; i < 105; i++) {
      await api.post(`/v1/webhooks/${hook.id}/test`, { label: `test delivery ${i + 1} of 105` });
      if (i % 10 === 9) await endpoint.waitFor(i + 1, 5000);
    }
    const ds = await endpoint.waitFor(105, 15_000);
    // A target may log a delivery when its attempt ends, which is when the receiver answers (a slow
    // receiver answers late): read the log once every arrived delivery was answered, and again while
    // it catches up (decision 073).
    await endpoint.answered(ds.length, 30_000);
    await ctx.sleep(300);
    const enough = (n: number | undefined): boolean => n !== undefined && n >= Math.min(100, ds.length - 5);
    let log = await api.get(`/v1/webhooks/${hook.id}/deliveries`);
    for (let i = 0; i < 20 && log.status === 200 && !enough(logEntries(log.body)?.length); i++) {
      await ctx.sleep(250);
      log = await api.get(`/v1/webhooks/${hook.id}/deliveries`);
    }
    const entries = logEntries(log.body);
    ctx.expect(
      'webhooks.deliveries.recent-100',
      'GET /v1/webhooks/{id}/deliveries after 105 deliveries',
      x.that(
        log.status === 200 && entries !== null && entries.length <= 100 && entries.length >= Math.min(100, ds.length - 5),
        'a list of at most 100 entries (about 100)',
        `${entries?.length ?? 'no list'} entries; ${ds.length} deliveries arrived`,
      ),
      log,
    );
    const firstId = envelopeOf(ds[0]!)?.delivery_id;
    const lastId = envelopeOf(ds.at(-1)!)?.delivery_id;
    if (typeof firstId === 'string' && typeof lastId === 'string' && x.containsString(log.body, lastId)) {
      ctx.expect(
        'webhooks.deliveries.recent-100',
        'the oldest delivery in the log',
        x.that(!x.containsString(log.body, firstId), 'dropped (only the most recent 100 kept)', `delivery ${firstId} still listed`),
        log,
      );
    } else ctx.note('log entries do not carry the delivery_id of the envelope: which entries were kept is not judged');
  },
});
