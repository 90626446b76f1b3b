/**
 * The rows of the operations table for /v1/webhooks (API.md, Webhooks).
 * operations.ts spreads them into OPERATIONS; the router, the scope check and
 * /openapi.json are built from them like every other row.
 *
 * Scopes are the spec's minimums ("read floor"); the per-route rules on top
 * (record for recording.* events, delete + first-party for all=true, owner
 * only) are enforced by the handlers (server/features/webhooks/handlers.ts).
 */
import { CREATE, READ, type Operation, type PathParam } from '../../kernel/operation-types.ts';
import { boolParam } from '../../kernel/http/query.ts';
import * as W from './schemas.ts';

const webhookId = { id: { description: 'webhook id' } } satisfies Record<string, PathParam>;

export const WEBHOOK_OPERATIONS = [
  {
    operationId: 'createWebhook',
    method: 'post',
    path: '/v1/webhooks',
    tag: 'webhooks',
    summary: 'Register a webhook (pending until approved in the application); recording.* events need the record scope',
    scope: 'read',
    ...CREATE,
    body: { schema: W.CreateWebhookRequest, required: true },
    responses: { 201: { description: 'the webhook, with its signing secret shown this once', schema: W.CreateWebhookResponse } },
  },
  {
    operationId: 'listWebhooks',
    method: 'get',
    path: '/v1/webhooks',
    tag: 'webhooks',
    summary: "The caller's webhooks; all=true lists every owner's (delete scope and a first-party token)",
    scope: 'read',
    ...READ,
    query: {
      all: boolParam({ default: false, description: "true lists every owner's webhooks (needs the delete scope and a first-party token)" }),
    },
    responses: { 200: { description: 'webhooks, newest first', schema: W.WebhookListResponse } },
  },
  {
    operationId: 'getWebhook',
    method: 'get',
    path: '/v1/webhooks/{id}',
    tag: 'webhooks',
    summary: 'One webhook with its approval_state (owner only)',
    scope: 'read',
    ...READ,
    pathParams: webhookId,
    responses: { 200: { description: 'the webhook', schema: W.WebhookDto } },
  },
  {
    operationId: 'deleteWebhook',
    method: 'delete',
    path: '/v1/webhooks/{id}',
    tag: 'webhooks',
    summary: 'Delete an owned webhook and its delivery log (the delete scope is not needed)',
    scope: 'read',
    readOnly: false,
    idempotent: false,
    destructive: true,
    pathParams: webhookId,
    responses: { 200: { description: 'deleted', schema: W.DeleteWebhookResponse } },
  },
  {
    operationId: 'listWebhookDeliveries',
    method: 'get',
    path: '/v1/webhooks/{id}/deliveries',
    tag: 'webhooks',
    summary: 'The delivery log: the most recent 100 entries, newest first (owner only)',
    scope: 'read',
    ...READ,
    pathParams: webhookId,
    responses: { 200: { description: 'the delivery log', schema: W.DeliveryLogResponse } },
  },
  {
    operationId: 'testWebhook',
    method: 'post',
    path: '/v1/webhooks/{id}/test',
    tag: 'webhooks',
    summary: 'Send one webhook.test delivery, a single attempt, if the destination is approved (owner only)',
    scope: 'read',
    readOnly: false,
    idempotent: false,
    destructive: false,
    pathParams: webhookId,
    responses: { 202: { description: 'accepted; see the delivery log for the outcome', schema: W.WebhookTestResponse } },
  },
] as const satisfies readonly Operation[];
