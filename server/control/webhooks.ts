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
import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import { ApiError } from '../kernel/errors.ts';
import { readJsonBody } from '../kernel/http/json-body.ts';
import { formatIssues } from '../kernel/http/validation.ts';
import type { WebhookRecord } from '../features/webhooks/repo.ts';
import type { ControlDeps } from './app.ts';

const ApprovalBody = z.strictObject({ state: z.enum(['allowed', 'denied']) });

/** A webhook as the application's settings see it: its owner, never its secret. */
function controlWebhookView(hook: WebhookRecord) {
  return {
    id: hook.id,
    owner_token_id: hook.token_id,
    url: hook.url,
    events: hook.events,
    delivery_mode: hook.delivery_mode,
    approval_state: hook.approval_state,
    created_at: hook.created_at,
    updated_at: hook.updated_at,
  };
}

export function registerWebhookControlRoutes(router: Router, ctl: ControlDeps): void {
  router.get('/control/webhooks', (_req, res) => {
    sendJson(res, 200, { webhooks: ctl.deps().webhooks.listAll().map(controlWebhookView) });
  });

  router.get('/control/webhooks/:id/deliveries', (req, res) => {
    const webhooks = ctl.deps().webhooks;
    const hook = webhooks.get(req.params.id ?? '');
    if (hook === null) throw new ApiError('not_found', 'no webhook with this id');
    sendJson(res, 200, { webhook_id: hook.id, deliveries: webhooks.repo.deliveries(hook.id) });
  });

  router.post('/control/webhooks/:id/approval', async (req, res) => {
    const body = await readControlBody(req, ApprovalBody);
    sendJson(res, 200, controlWebhookView(ctl.deps().webhooks.setApproval(req.params.id ?? '', body.state)));
  });
}

/** A required JSON body checked against a schema: 400 not JSON, 422 missing or wrong shape. */
export async function readControlBody<S extends z.ZodType>(req: Request, schema: S, required = true): Promise<z.output<S>> {
  const raw = await readJsonBody(req);
  if (raw === undefined && required) throw new ApiError('invalid_request', 'this call needs a JSON body');
  const parsed = schema.safeParse(raw ?? {});
  if (!parsed.success) throw new ApiError('invalid_request', formatIssues(parsed.error.issues));
  return parsed.data;
}

export function sendJson(res: Response, status: number, body: unknown): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.send(JSON.stringify(body));
}
