/**
 * What the rest of the gateway uses of webhooks: the subscribable event names
 * and the signature headers, both described by GET /openapi.json; the service
 * (built by the composition root, with its delivery overrides for tests) and
 * the view of a webhook that the Control API lists.
 */
export { SUBSCRIBABLE_EVENTS } from './event-catalog.ts';
export { SIGNATURE_HEADER, TIMESTAMP_HEADER } from './signature.ts';
export { controlWebhookView, WebhooksService, type WebhookDeliveryOverrides } from './service.ts';
