/**
 * Webhook signatures (API.md, Webhooks → Delivery), for the sender and for
 * receivers. Pure functions: no clock, no I/O.
 *
 *   X-Service-Timestamp: <unix seconds>
 *   X-Service-Signature: sha256=<lowercase hex HMAC-SHA256(secret, `${timestamp}.${rawBody}`)>
 *
 * The key is the UTF-8 bytes of hmac_secret exactly as the create response
 * showed it (prefix included). The signed text is the timestamp header value,
 * a literal dot, then the raw body bytes exactly as received: verify before
 * parsing the JSON, never over a re-serialised object.
 *
 * verify() is strict (docs/decisions/014-webhooks.md): the header must be
 * exactly `sha256=` followed by 64 lowercase hex digits (uppercase hex is
 * refused, since the sender always writes lowercase), the timestamp must be
 * plain decimal digits, and it must be within `toleranceSeconds` (default
 * 300) of `now` either way. The comparison runs in constant time.
 *
 * Test vectors: fixtures/webhooks/signature-vectors.json.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Service-Signature';
export const TIMESTAMP_HEADER = 'X-Service-Timestamp';
export const DEFAULT_TOLERANCE_SECONDS = 300;

const SIGNATURE_FORMAT = /^sha256=[0-9a-f]{64}$/;
const TIMESTAMP_FORMAT = /^\d{1,15}$/;

function bytesOf(value: string | Uint8Array): Buffer {
  return typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}

/** The lowercase hex HMAC-SHA256 of `${timestamp}.${rawBody}`. */
function signatureHex(secret: string, timestamp: number | string, rawBody: string | Uint8Array): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(Buffer.from(`${String(timestamp)}.`, 'utf8'))
    .update(bytesOf(rawBody))
    .digest('hex');
}

/** The X-Service-Signature header value: `sha256=<lowercase hex>`. */
export function sign(secret: string, timestamp: number | string, rawBody: string | Uint8Array): string {
  return `sha256=${signatureHex(secret, timestamp, rawBody)}`;
}

export type VerifyFailure =
  | 'missing_signature'
  | 'missing_timestamp'
  | 'malformed_signature'
  | 'malformed_timestamp'
  | 'timestamp_out_of_tolerance'
  | 'signature_mismatch';

export type VerifyResult = { ok: true } | { ok: false; reason: VerifyFailure };

export interface VerifyInput {
  secret: string;
  /** The X-Service-Timestamp header value as received. */
  timestamp: string | undefined;
  /** The X-Service-Signature header value as received. */
  signatureHeader: string | undefined;
  /** The body exactly as received (a string is taken as its UTF-8 bytes). */
  rawBody: string | Uint8Array;
  /** The receiver's current time: unix seconds, or a Date. */
  now: number | Date;
  /** How far the timestamp may be from now, either way; default 300 s. */
  toleranceSeconds?: number;
}

/** Checks a delivery's signature and timestamp. Never throws for bad input. */
export function verify(input: VerifyInput): VerifyResult {
  const { signatureHeader, timestamp } = input;
  if (signatureHeader === undefined || signatureHeader === '') return { ok: false, reason: 'missing_signature' };
  if (timestamp === undefined || timestamp === '') return { ok: false, reason: 'missing_timestamp' };
  if (!SIGNATURE_FORMAT.test(signatureHeader)) return { ok: false, reason: 'malformed_signature' };
  if (!TIMESTAMP_FORMAT.test(timestamp)) return { ok: false, reason: 'malformed_timestamp' };

  const nowSeconds = input.now instanceof Date ? Math.floor(input.now.getTime() / 1000) : Math.floor(input.now);
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(nowSeconds - Number(timestamp)) > tolerance) return { ok: false, reason: 'timestamp_out_of_tolerance' };

  // Both sides are 64 ASCII hex digits here, so the lengths match and
  // timingSafeEqual compares every byte whatever the first difference is.
  const expected = Buffer.from(signatureHex(input.secret, timestamp, input.rawBody), 'ascii');
  const presented = Buffer.from(signatureHeader.slice('sha256='.length), 'ascii');
  return timingSafeEqual(expected, presented) ? { ok: true } : { ok: false, reason: 'signature_mismatch' };
}
