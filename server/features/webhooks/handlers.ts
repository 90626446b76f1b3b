/**
 * Handlers of every route under /v1/webhooks. The rules and their order are
 * in server/features/webhooks/service.ts; decisions in docs/decisions/014-webhooks.md.
 */
import type { HandlersFor } from '../../http-types.ts';
import type { Caller } from '../../kernel/auth.ts';
import type { TokenRecord } from '../../kernel/store/tokens-repo.ts';
import { createdWebhookDto, webhookDto, type WebhooksService } from './service.ts';

/** The services the webhook routes use, and nothing else (built by server/deps.ts). */
export interface WebhooksDeps {
  webhooks: WebhooksService;
}

/** Every webhook route: the feature switch first, then the caller's token (the row's scope guarantees one). */
function enabledCaller(ctx: { deps: WebhooksDeps; caller: Caller }): TokenRecord {
  ctx.deps.webhooks.assertEnabled();
  return ctx.caller.token;
}

function idParam(ctx: { params: { readonly id: string } }): string {
  return ctx.params.id;
}

export const webhookHandlers = {
  createWebhook: async (ctx) => {
    const owner = enabledCaller(ctx);
    const hook = await ctx.deps.webhooks.register(owner, ctx.body);
    return { status: 201, json: createdWebhookDto(hook) };
  },

  listWebhooks: (ctx) => {
    const caller = enabledCaller(ctx);
    const hooks = ctx.query.all ? ctx.deps.webhooks.listEveryone(caller) : ctx.deps.webhooks.listOwn(caller);
    return { status: 200, json: { webhooks: hooks.map(webhookDto) } };
  },

  getWebhook: (ctx) => {
    const caller = enabledCaller(ctx);
    return { status: 200, json: webhookDto(ctx.deps.webhooks.owned(caller, idParam(ctx))) };
  },

  deleteWebhook: (ctx) => {
    const caller = enabledCaller(ctx);
    const id = idParam(ctx);
    ctx.deps.webhooks.delete(caller, id);
    return { status: 200, json: { id, deleted: true } };
  },

  listWebhookDeliveries: (ctx) => {
    const caller = enabledCaller(ctx);
    const id = idParam(ctx);
    return { status: 200, json: { webhook_id: id, deliveries: ctx.deps.webhooks.deliveries(caller, id) } };
  },

  testWebhook: (ctx) => {
    const caller = enabledCaller(ctx);
    const { hook, event_id, delivery_id } = ctx.deps.webhooks.test(caller, idParam(ctx));
    return {
      status: 202,
      json: { webhook_id: hook.id, event: 'webhook.test', event_id, delivery_id, approval_state: hook.approval_state },
    };
  },
} satisfies HandlersFor<
  'createWebhook' | 'listWebhooks' | 'getWebhook' | 'deleteWebhook' | 'listWebhookDeliveries' | 'testWebhook',
  WebhooksDeps
>;
