import fc from 'fast-check';
import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import type { Command } from '../../harness/model.ts';
import { command, modelRun } from '../../harness/model.ts';
import { allowReceiver, registerWebhook } from '../../harness/webhooks.ts';

interface Model {
  state: 'pending' | 'allowed' | 'denied';
}
interface Real {
  id: string;
}

export const check = defineCheck({
  id: 'webhooks/approval-model',
  clauses: ['webhooks.approval.register-pending', 'webhooks.approval.allow', 'webhooks.approval.deny', 'webhooks.get.approval-state'],
  level: 'requirement',
  touches: 'own',
  needs: ['receiver', 'settings', 'restart', 'webhook-approval', 'tokens'],
  timeoutMs: 120_000,
  description:
    'Model-based (fc.commands): a webhook registered to the allowlisted receiver starts ' +
    'pending; random sequences of allow, deny (both through the Control API) and read (GET ' +
    '/v1/webhooks/{id}) must follow the approval table: pending → allowed, pending or allowed → ' +
    'denied; nothing the spec shows leads out of denied (an allow there must not make it ' +
    'allowed); every read shows the model state.',
  requirement: 'A newly registered webhook starts with approval_state pending.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const endpoint = await ctx.endpoint('approval-model');
    await allowReceiver(ctx, endpoint);

    const read = async (m: Model, r: Real, step: string): Promise<void> => {
      const res = await api.get(`/v1/webhooks/${r.id}`);
      const state = (res.body as { approval_state?: unknown } | undefined)?.approval_state;
      const clause =
        m.state === 'pending'
          ? 'webhooks.approval.register-pending'
          : m.state === 'allowed'
            ? 'webhooks.approval.allow'
            : 'webhooks.approval.deny';
      ctx.expect(clause, `GET /v1/webhooks/{id} after ${step}`, x.equal(state, m.state, 'approval_state'), res);
    };
    const allow = command<Model, Real>(
      'allow',
      () => true,
      async (m, r) => {
        const res = await ctx.control.setWebhookApproval(r.id, 'allowed', [200, 204, 409]);
        if (m.state === 'denied') {
          // Out of denied: not shown by the spec; whatever the answer, it must not become allowed.
          ctx.note(`allow of a denied webhook answered ${res.status}`);
        } else {
          ctx.expect(
            'webhooks.approval.allow',
            `approval of a ${m.state} webhook`,
            x.that(res.status === 200 || res.status === 204, '2xx', String(res.status)),
            res,
          );
          m.state = 'allowed';
        }
        await read(m, r, 'allow');
      },
    );
    const deny = command<Model, Real>(
      'deny',
      () => true,
      async (m, r) => {
        const res = await ctx.control.setWebhookApproval(r.id, 'denied', [200, 204, 409]);
        ctx.expect(
          'webhooks.approval.deny',
          `denial of a ${m.state} webhook`,
          x.that(res.status === 200 || res.status === 204, '2xx', String(res.status)),
          res,
        );
        m.state = 'denied';
        await read(m, r, 'deny');
      },
    );
    const look = command<Model, Real>(
      'read',
      () => true,
      (m, r) => read(m, r, 'nothing'),
    );
    const commands: Array<fc.Arbitrary<Command<Model, Real>>> = [fc.constant(allow), fc.constant(deny), fc.constant(look)];
    const fresh = async (): Promise<{ model: Model; real: Real }> => {
      const hook = await registerWebhook(api, endpoint, ['job.completed']);
      if ('refused' in hook) return ctx.skip(`the webhook to the receiver could not be registered: ${hook.refused.describe(201)}`);
      const real = { id: hook.id };
      const model: Model = { state: 'pending' };
      await read(model, real, 'registration');
      return { model, real };
    };
    // Fixed sequences first (pending → allowed → denied → allow refused; pending → denied), then random ones.
    for (const sequence of [
      [allow, deny, allow, look],
      [deny, allow, look],
    ]) {
      const { model, real } = await fresh();
      for (const c of sequence) await c.run(model, real);
      await api.delete(`/v1/webhooks/${real.id}`, { label: 'clean up' });
    }
    await modelRun<Model, Real>(ctx, 'webhook approval', {
      commands,
      maxCommands: 6,
      runs: ctx.runs(0.2),
      setup: fresh,
      teardown: async (r) => {
        await api.delete(`/v1/webhooks/${r.id}`, { label: 'clean up' });
      },
    });
  },
});
