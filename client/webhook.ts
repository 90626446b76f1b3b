/**
 * Verifying a webhook delivery on the receiving side: the X-Service-Signature
 * and X-Service-Timestamp headers against the raw body, in constant time.
 * The recipe is the gateway's own pure signature module (one implementation
 * for sender and receiver, with its test vectors in
 * fixtures/webhooks/signature-vectors.json); this wraps it for a receiver
 * that has a request's headers and body in hand.
 */
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verify, type VerifyResult } from '../server/features/webhooks/signature.ts';
import type { webhooks } from './openapi-types.ts';

export { sign, SIGNATURE_HEADER, TIMESTAMP_HEADER, type VerifyResult, type VerifyFailure } from '../server/features/webhooks/signature.ts';

/** A delivery's parsed body, typed per event from the document's webhooks section. */
export type WebhookDelivery<E extends keyof webhooks> = webhooks[E]['post']['requestBody']['content']['application/json'];
export type WebhookEventName = keyof webhooks;

/** Headers as node:http gives them (lower-cased keys) or as a fetch Headers object. */
export type HeaderSource = Record<string, string | string[] | undefined> | { get(name: string): string | null };

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function')
    return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const value = record[name.toLowerCase()] ?? record[name];
  return Array.isArray(value) ? value[0] : value;
}

export interface VerifyDeliveryInput {
  /** The hmac_secret shown once when the webhook was created. */
  secret: string;
  headers: HeaderSource;
  /** The body exactly as received, before any JSON parsing. */
  rawBody: string | Uint8Array;
  /** The receiver's clock; now by default. */
  now?: number | Date;
  /** How far the timestamp may be from now, either way; 300 s by default. */
  toleranceSeconds?: number;
}

/** Checks one delivery. Never throws; `{ok: false, reason}` says why it is refused. */
export function verifyWebhookDelivery(input: VerifyDeliveryInput): VerifyResult {
  return verify({
    secret: input.secret,
    signatureHeader: header(input.headers, SIGNATURE_HEADER),
    timestamp: header(input.headers, TIMESTAMP_HEADER),
    rawBody: input.rawBody,
    now: input.now ?? new Date(),
    ...(input.toleranceSeconds !== undefined ? { toleranceSeconds: input.toleranceSeconds } : {}),
  });
}
