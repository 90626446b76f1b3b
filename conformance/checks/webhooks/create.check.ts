import { defineCheck } from '../../harness/check.ts';
import { publicWebhookUrl } from '../../harness/webhooks.ts';
import * as x from '../../harness/expect.ts';
import { APPROVAL_STATES } from '../../spec/constants.ts';

export const check = defineCheck({
  id: 'webhooks/create',
  clauses: [
    'webhooks.create.201',
    'webhooks.create.secret.generated',
    'webhooks.create.hmac-secret-once',
    'webhooks.create.delivery-mode',
    'webhooks.get.approval-state',
    'webhooks.approval.register-pending',
    'webhooks.create.events.non-empty',
    'webhooks.create.events.non-subscribable.400',
    'webhooks.delete.owned',
    'webhooks.delete.unknown.404',
    'webhooks.test.202',
  ],
  level: 'requirement',
  needs: ['token'],
  description:
    'Registers public webhooks with and without delivery_mode: 201 with id, url, events, ' +
    'delivery_mode (default at-least-once), created_at and a generated hmac_secret that GET and ' +
    'the list never show again; GET shows approval_state pending; events [] or missing, and ' +
    'meeting.* / transcription.completed are refused; DELETE removes it (then 404), and an ' +
    'unknown id gives 404; POST …/test on an owned webhook (still pending: nothing is sent) ' +
    'answers 202.',
  requirement: 'A valid registration answers 201 with id, url, events, delivery_mode, created_at and hmac_secret.',
  async run(ctx) {
    const URL_ = publicWebhookUrl(ctx);
    const api = ctx.as(await ctx.token(['read']));
    const res = await api.post('/v1/webhooks', { json: { url: URL_, events: ['job.completed', 'job.failed'] } });
    ctx.require(
      'webhooks.create.201',
      'POST /v1/webhooks {url, events}',
      x.all(
        x.status(res, 201),
        x.fields(
          res.body,
          { id: 'string', url: 'string', events: 'array', delivery_mode: 'string', created_at: 'timestamp', hmac_secret: 'string' },
          'webhook',
        ),
      ),
      res,
    );
    const hook = res.body as { id: string; hmac_secret: string; delivery_mode: string };
    ctx.expect(
      'webhooks.create.secret.generated',
      'hmac_secret of the 201',
      x.that(hook.hmac_secret.length >= 16, 'a generated secret (16+ characters)', `hmac_secret of ${hook.hmac_secret.length} characters`),
      res,
    );
    ctx.expect(
      'webhooks.create.delivery-mode',
      'delivery_mode when omitted',
      x.equal(hook.delivery_mode, 'at-least-once', 'delivery_mode'),
      res,
    );
    const amo = await api.post('/v1/webhooks', { json: { url: URL_, events: ['job.completed'], delivery_mode: 'at-most-once' } });
    ctx.expect(
      'webhooks.create.delivery-mode',
      'POST /v1/webhooks delivery_mode at-most-once',
      x.all(
        x.status(amo, 201),
        x.equal((amo.body as { delivery_mode?: unknown } | undefined)?.delivery_mode, 'at-most-once', 'delivery_mode'),
      ),
      amo,
    );
    const bad = await api.post('/v1/webhooks', { json: { url: URL_, events: ['job.completed'], delivery_mode: 'exactly-once' } });
    ctx.expect('webhooks.create.delivery-mode', 'POST /v1/webhooks delivery_mode exactly-once', x.refused(bad, 400), bad);
    const get = await api.get(`/v1/webhooks/${hook.id}`);
    const state = (get.body as { approval_state?: unknown } | undefined)?.approval_state;
    ctx.expect(
      'webhooks.get.approval-state',
      'GET /v1/webhooks/{id}',
      x.all(
        x.status(get, 200),
        x.that(
          (APPROVAL_STATES as readonly string[]).includes(String(state)),
          'approval_state pending, allowed or denied',
          `approval_state ${x.show(state)}`,
        ),
      ),
      get,
    );
    ctx.expect('webhooks.approval.register-pending', 'approval_state of a new webhook', x.equal(state, 'pending', 'approval_state'), get);
    ctx.expect(
      'webhooks.create.hmac-secret-once',
      'GET /v1/webhooks/{id}',
      x.that(
        !x.containsString(get.body, hook.hmac_secret) && !('hmac_secret' in ((get.body as object | undefined) ?? {})),
        'no hmac_secret',
        get.describe(200),
      ),
      get,
    );
    const list = await api.get('/v1/webhooks');
    ctx.expect(
      'webhooks.create.hmac-secret-once',
      'GET /v1/webhooks',
      x.that(
        list.ok && !x.containsString(list.body, hook.hmac_secret) && !list.text.includes('hmac_secret'),
        'no hmac_secret',
        list.describe(200),
      ),
      list,
    );
    for (const body of [{ url: URL_, events: [] }, { url: URL_ }, { url: URL_, events: 'job.completed' }]) {
      const r = await api.post('/v1/webhooks', { json: body });
      ctx.expect('webhooks.create.events.non-empty', `POST /v1/webhooks ${JSON.stringify(body)}`, x.refused(r, 400), r);
    }
    for (const event of ['meeting.created', 'meeting.updated', 'meeting.deleted', 'transcription.completed']) {
      const r = await api.post('/v1/webhooks', { json: { url: URL_, events: ['job.completed', event] } });
      ctx.expect('webhooks.create.events.non-subscribable.400', `POST /v1/webhooks events [job.completed, ${event}]`, x.error(r, 400), r);
    }
    // The test route answers 202 on an owned webhook whatever its approval (the delivery itself waits for consent).
    // A token holding write, so the read-floor conflict that webhooks/scope-read-floor grades plays no part.
    const tester = ctx.as(await ctx.token(['read', 'write']));
    const th = await tester.post('/v1/webhooks', { json: { url: URL_, events: ['job.completed'] } });
    const thId = (th.body as { id?: unknown } | undefined)?.id;
    if (th.status === 201 && typeof thId === 'string') {
      const t = await tester.post(`/v1/webhooks/${thId}/test`);
      ctx.expect('webhooks.test.202', 'POST /v1/webhooks/{id}/test on an owned webhook (pending)', x.status(t, 202), t);
      await tester.delete(`/v1/webhooks/${thId}`, { label: 'clean up' });
    } else ctx.note(`not checked: the test route (a second registration answered ${th.describe(120)})`);
    const del = await api.delete(`/v1/webhooks/${hook.id}`);
    ctx.expect('webhooks.delete.owned', 'DELETE /v1/webhooks/{id} by its owner', x.success(del), del);
    const gone = await api.get(`/v1/webhooks/${hook.id}`);
    ctx.expect('webhooks.delete.owned', 'GET /v1/webhooks/{id} after the delete', x.error(gone, 404, 'not_found'), gone);
    for (const id of [hook.id, 'wh_00000000-0000-4000-8000-000000000000', '00000000-0000-4000-8000-000000000000']) {
      const r = await api.delete(`/v1/webhooks/${id}`);
      ctx.expect('webhooks.delete.unknown.404', `DELETE /v1/webhooks/${id} (no such webhook)`, x.error(r, 404, 'not_found'), r);
    }
  },
});
