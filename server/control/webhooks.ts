/**
 * The Control API's webhook routes (CONTROL.md, Webhook approval): the
 * application's side of egress consent, and what its settings page lists.
 *
 *   GET  /control/webhooks                    every webhook, every owner (never a secret)
 *   GET  /control/webhooks/{id}/deliveries    one webhook's delivery log, newest first
 *   POST /control/webhooks/{id}/approval      {"state": "allowed" | "denied"} → 200;
 *                                             422 bad body, then 404 unknown, 409 out of denied
 *
 * They work whatever the Automation API switch and webhooks_enabled say.
 * Decisions: docs/decisions/014-webhooks.md.
 */
import { z } from 'zod';
import { controlWebhookView, type WebhooksService } from '../features/webhooks/index.ts';
import { ApiError } from '../kernel/errors.ts';
import { json, readBody } from './http.ts';
import type { ControlRoute } from './route-table.ts';

/** What the webhook routes use, and nothing else. */
export interface WebhookControlDeps {
  webhooks: Pick<WebhooksService, 'listAll' | 'get' | 'repo' | 'setApproval'>;
}

const ApprovalBody = z.strictObject({ state: z.enum(['allowed', 'denied']) });

/** `deps` gives the current services (they are rebuilt at every restart). */
export const WEBHOOK_CONTROL_ROUTES: ControlRoute<WebhookControlDeps>[] = [
  {
    method: 'get',
    path: '/control/webhooks',
    capability: 'webhook-approval',
    handle: (_req, res, deps) => json(res, 200, { webhooks: deps.webhooks.listAll().map(controlWebhookView) }),
  },
  {
    method: 'get',
    path: '/control/webhooks/:id/deliveries',
    capability: 'webhook-approval',
    handle: (req, res, deps) => {
      const hook = deps.webhooks.get(String(req.params['id']));
      if (hook === null) throw new ApiError('not_found', 'no webhook with this id');
      json(res, 200, { webhook_id: hook.id, deliveries: deps.webhooks.repo.deliveries(hook.id) });
    },
  },
  {
    method: 'post',
    path: '/control/webhooks/:id/approval',
    capability: 'webhook-approval',
    handle: async (req, res, deps) => {
      const body = await readBody(req, ApprovalBody, true);
      json(res, 200, controlWebhookView(deps.webhooks.setApproval(String(req.params['id']), body.state)));
    },
  },
];
