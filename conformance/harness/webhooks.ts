/**
 * Webhook helpers for the receiver-based checks: make the receiver a
 * registrable destination (the Local webhook targets allowlist is read at
 * startup, so a restart follows), register a webhook to an endpoint, approve
 * it through the Control API, and read deliveries back as envelopes.
 */
import { DELIVERY_REASONS } from '../spec/constants.ts';
import type { CheckContext } from './context.ts';
import type { BoundClient } from './context-types.ts';
import type { Delivery } from './exchange.ts';
import type { HttpResult } from './http.ts';
import type { Endpoint, Reply } from './receiver.ts';
import { rawBody } from './receiver.ts';
import { verifySignature } from './signature.ts';

/**
 * Where a webhook that must point at a public address points (it is registered, never meant to be
 * delivered to): an address in IPv6 global unicast space that IANA holds in reserve and has assigned to
 * no one, so it is public by every special-purpose registry, needs no DNS, belongs to nobody and is routed
 * nowhere. --public-webhook-url sets another (docs/decisions/075-conformance-leaves-the-target-as-found.md).
 */
const DEFAULT_PUBLIC_WEBHOOK_URL = 'https://[2d00::1]/mas-conformance-webhook';

/** The run's public webhook address (--public-webhook-url, else the default above). */
export function publicWebhookUrl(ctx: CheckContext): string {
  return ctx.env.publicWebhookUrl ?? DEFAULT_PUBLIC_WEBHOOK_URL;
}

/** Adds the receiver's host:port to local_webhook_targets and restarts (Control API settings + restart). */
export async function allowReceiver(ctx: CheckContext, endpoint: Endpoint): Promise<void> {
  const settings = await ctx.control.settings();
  if (!settings.local_webhook_targets.includes(endpoint.hostPort)) {
    await ctx.control.patchSettings({ local_webhook_targets: [...settings.local_webhook_targets, endpoint.hostPort] });
    await ctx.control.restart();
  }
}

export interface Registered {
  id: string;
  secret: string;
  res: HttpResult;
}

/** POST /v1/webhooks to the endpoint; null (with the answer) when it is refused. */
export async function registerWebhook(
  api: BoundClient,
  endpoint: Endpoint,
  events: string[],
  extra: Record<string, unknown> = {},
): Promise<Registered | { refused: HttpResult }> {
  const res = await api.post('/v1/webhooks', { json: { url: endpoint.url, events, ...extra } });
  const body = res.body as { id?: unknown; hmac_secret?: unknown } | undefined;
  if (res.status !== 201 || typeof body?.id !== 'string' || typeof body.hmac_secret !== 'string') return { refused: res };
  return { id: body.id, secret: body.hmac_secret, res };
}

/** A webhook registered to a fresh allowlisted endpoint and approved: ready to receive. */
async function approvedWebhook(
  ctx: CheckContext,
  api: BoundClient,
  name: string,
  events: string[],
  extra: Record<string, unknown> = {},
): Promise<{ endpoint: Endpoint; hook: Registered }> {
  const endpoint = await ctx.endpoint(name);
  await allowReceiver(ctx, endpoint);
  const hook = await registerWebhook(api, endpoint, events, extra);
  if ('refused' in hook) return ctx.skip(`the webhook to the receiver could not be registered: ${hook.refused.describe(200)}`);
  await ctx.control.setWebhookApproval(hook.id, 'allowed');
  return { endpoint, hook };
}

export interface Envelope {
  schema_version?: unknown;
  event_id?: unknown;
  event?: unknown;
  occurred_at?: unknown;
  resource?: { kind?: unknown; id?: unknown };
  delivery_id?: unknown;
  operation_id?: unknown;
}

export function envelopeOf(d: Delivery): Envelope | undefined {
  try {
    return JSON.parse(rawBody(d).toString('utf8')) as Envelope;
  } catch {
    return undefined;
  }
}

export function signatureHolds(d: Delivery, secret: string): boolean {
  const ts = d.headers['x-service-timestamp'];
  return ts !== undefined && verifySignature(secret, ts, rawBody(d), d.headers['x-service-signature']);
}

/** An approved webhook (allowlisted receiver endpoint answering `replies`), for delivery checks. */
export async function hookTo(
  ctx: CheckContext,
  api: BoundClient,
  name: string,
  events: string[],
  replies: Reply | Reply[],
  extra: Record<string, unknown> = {},
): Promise<{ endpoint: Endpoint; hook: Registered }> {
  const r = await approvedWebhook(ctx, api, name, events, extra);
  r.endpoint.reply(replies);
  return r;
}

/** Every reason code that occurs in a delivery log answer (its entry shape is a gap, so by value). */
export function reasonsIn(body: unknown): string[] {
  return DELIVERY_REASONS.filter((r) => containsValue(body, r));
}

function containsValue(value: unknown, needle: string): boolean {
  if (typeof value === 'string') return value === needle;
  if (Array.isArray(value)) return value.some((v) => containsValue(v, needle));
  if (value !== null && typeof value === 'object') return Object.values(value).some((v) => containsValue(v, needle));
  return false;
}

/** The entries of a delivery log answer: the array itself, or the first array field. */
export function logEntries(body: unknown): unknown[] | null {
  if (Array.isArray(body)) return body as unknown[];
  if (body !== null && typeof body === 'object') for (const v of Object.values(body)) if (Array.isArray(v)) return v as unknown[];
  return null;
}
