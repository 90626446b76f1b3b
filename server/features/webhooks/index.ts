/**
 * What other features use of webhooks: the subscribable event names and the
 * signature headers, both described by GET /openapi.json.
 */
export { SUBSCRIBABLE_EVENTS } from './event-catalog.ts';
export { SIGNATURE_HEADER, TIMESTAMP_HEADER } from './signature.ts';
