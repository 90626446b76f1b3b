/**
 * Request and response bodies of /v1/webhooks (API.md, Webhook; decisions in
 * docs/decisions/014-webhooks.md).
 *
 * The schema checks shape only (422 invalid_request): the url's scheme and
 * destination and the event names are checked by the service, which answers
 * 400 bad_request as API.md's case rules say.
 */
import { z } from 'zod';
import { Timestamp } from '../../kernel/common-schemas.ts';
import { MAX_URL_LENGTH } from './destination.ts';
import { SUBSCRIBABLE_EVENTS } from './event-catalog.ts';
import { APPROVAL_STATES, DELIVERY_MODES, DELIVERY_REASONS } from './repo.ts';

const EVENTS_HELP = `Subscribable: ${SUBSCRIBABLE_EVENTS.join(', ')}. recording.* needs the record scope.`;

/** A client-supplied signing secret: 16 to 256 visible ASCII characters, used as given. */
const WebhookSecret = z
  .string()
  .regex(/^[\x21-\x7e]{16,256}$/, 'must be 16 to 256 visible ASCII characters (no spaces)')
  .meta({ description: 'optional signing secret, 16 to 256 visible ASCII characters; generated when omitted' });

export const CreateWebhookRequest = z
  .strictObject({
    url: z.string().min(1).max(MAX_URL_LENGTH).meta({ description: 'http:// or https:// destination' }),
    events: z
      .array(z.string().min(1).max(100))
      .min(1)
      .max(SUBSCRIBABLE_EVENTS.length * 2)
      .meta({ description: EVENTS_HELP }),
    delivery_mode: z.enum(DELIVERY_MODES).optional().meta({ description: 'at-least-once (default) or at-most-once' }),
    secret: WebhookSecret.optional(),
  })
  .meta({ id: 'CreateWebhookRequest' });

const webhookFields = {
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  delivery_mode: z.enum(DELIVERY_MODES),
  created_at: Timestamp,
};

export const CreateWebhookResponse = z
  .object({
    ...webhookFields,
    hmac_secret: z.string().meta({ description: 'the signing key; shown in this response only, never again' }),
  })
  .meta({ id: 'CreateWebhookResponse' });

export const WebhookDto = z
  .object({
    ...webhookFields,
    approval_state: z
      .enum(APPROVAL_STATES)
      .meta({ description: 'pending until the destination is approved in the application; only allowed delivers' }),
    owner_token_id: z.string().meta({ description: 'the token that registered the webhook' }),
  })
  .meta({ id: 'WebhookDto' });

export const WebhookListResponse = z.object({ webhooks: z.array(WebhookDto) }).meta({ id: 'WebhookListResponse' });

export const DeleteWebhookResponse = z.object({ id: z.string(), deleted: z.literal(true) }).meta({ id: 'DeleteWebhookResponse' });

const DeliveryLogEntryDto = z
  .object({
    delivery_id: z.string().meta({ description: 'the same on every attempt of one delivery' }),
    event_id: z.string(),
    event: z.string(),
    attempt: z
      .number()
      .int()
      .min(1)
      .nullable()
      .meta({ description: '1 to 6; null for an entry that is not an attempt (denied, exhausted)' }),
    delivered: z.boolean().meta({ description: 'true when the destination answered 2xx' }),
    reason: z.enum(DELIVERY_REASONS).nullable().meta({ description: 'why it failed; null when delivered' }),
    status_code: z.number().int().nullable().meta({ description: "the destination's HTTP status, or null when there was none" }),
    detail: z.string().nullable().meta({ description: 'a few words on what happened' }),
    occurred_at: Timestamp,
    next_attempt_at: Timestamp.nullable().meta({ description: 'when the next attempt is due; null when none follows' }),
  })
  .meta({ id: 'DeliveryLogEntry' });

export const DeliveryLogResponse = z
  .object({
    webhook_id: z.string(),
    deliveries: z.array(DeliveryLogEntryDto).max(100).meta({ description: 'the most recent 100, newest first' }),
  })
  .meta({ id: 'DeliveryLogResponse' });

export const WebhookTestResponse = z
  .object({
    webhook_id: z.string(),
    event: z.literal('webhook.test'),
    event_id: z.string(),
    delivery_id: z.string().nullable().meta({ description: 'null when nothing was queued (approval pending, or the queue full)' }),
    approval_state: z.enum(APPROVAL_STATES).meta({ description: 'only allowed sends; denied logs reason denied; pending does nothing' }),
  })
  .meta({ id: 'WebhookTestResponse' });
