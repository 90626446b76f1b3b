/**
 * Webhook signatures (API.md, Webhooks > Delivery), as pure functions:
 * lowercase hex HMAC-SHA256 keyed with the webhook's hmac_secret over
 * `${timestamp}.${raw body bytes}`, sent as `sha256=<hex>`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export function signatureHex(secret: string, timestamp: string, rawBody: Uint8Array): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(Buffer.from(`${timestamp}.`, 'utf8'))
    .update(rawBody)
    .digest('hex');
}

export function signatureHeader(secret: string, timestamp: string, rawBody: Uint8Array): string {
  return `sha256=${signatureHex(secret, timestamp, rawBody)}`;
}

/** Constant-time comparison of a received X-Service-Signature value with the expected one. */
export function verifySignature(secret: string, timestamp: string, rawBody: Uint8Array, header: string | undefined): boolean {
  if (header === undefined) return false;
  const expected = Buffer.from(signatureHeader(secret, timestamp, rawBody), 'utf8');
  const got = Buffer.from(header, 'utf8');
  return got.length === expected.length && timingSafeEqual(got, expected);
}
