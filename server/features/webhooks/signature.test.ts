/**
 * sign() and verify() against the shared vectors of
 * fixtures/webhooks/signature-vectors.json (written independently with
 * Python's hmac), plus properties over random inputs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { DEFAULT_TOLERANCE_SECONDS, sign, SIGNATURE_HEADER, TIMESTAMP_HEADER, verify } from './signature.ts';

interface ValidVector {
  name: string;
  secret: string;
  timestamp: string;
  raw_body?: string;
  raw_body_base64?: string;
  expected_signature_header: string;
}

interface CheckVector {
  name: string;
  secret: string;
  timestamp: string | null;
  signature_header: string | null;
  raw_body: string;
  now: number;
  tolerance_seconds: number;
  expected_reason?: string;
}

const VECTORS = JSON.parse(readFileSync(new URL('../../../fixtures/webhooks/signature-vectors.json', import.meta.url), 'utf8')) as {
  signature_header: string;
  timestamp_header: string;
  default_tolerance_seconds: number;
  valid: ValidVector[];
  invalid: CheckVector[];
  accepted: CheckVector[];
};

function bodyOf(v: ValidVector): Buffer {
  return v.raw_body_base64 !== undefined ? Buffer.from(v.raw_body_base64, 'base64') : Buffer.from(v.raw_body ?? '', 'utf8');
}

test('header names and the default tolerance are the ones the vectors state', () => {
  assert.equal(SIGNATURE_HEADER, VECTORS.signature_header);
  assert.equal(TIMESTAMP_HEADER, VECTORS.timestamp_header);
  assert.equal(DEFAULT_TOLERANCE_SECONDS, VECTORS.default_tolerance_seconds);
});

test('valid vectors: sign() gives the expected header, verify() accepts it', () => {
  assert.ok(VECTORS.valid.length >= 5);
  for (const v of VECTORS.valid) {
    const body = bodyOf(v);
    assert.equal(sign(v.secret, v.timestamp, body), v.expected_signature_header, v.name);
    if (v.raw_body !== undefined)
      assert.equal(sign(v.secret, v.timestamp, v.raw_body), v.expected_signature_header, `${v.name} (string body)`);
    assert.match(v.expected_signature_header, /^sha256=[0-9a-f]{64}$/);
    const result = verify({
      secret: v.secret,
      timestamp: v.timestamp,
      signatureHeader: v.expected_signature_header,
      rawBody: body,
      now: Number(v.timestamp),
    });
    assert.deepEqual(result, { ok: true }, v.name);
  }
});

test('invalid vectors: verify() refuses each with the expected reason', () => {
  assert.ok(VECTORS.invalid.length >= 10);
  for (const v of VECTORS.invalid) {
    const result = verify({
      secret: v.secret,
      timestamp: v.timestamp ?? undefined,
      signatureHeader: v.signature_header ?? undefined,
      rawBody: v.raw_body,
      now: v.now,
      toleranceSeconds: v.tolerance_seconds,
    });
    assert.deepEqual(result, { ok: false, reason: v.expected_reason }, v.name);
  }
});

test('accepted edge vectors: exactly at the tolerance either way', () => {
  for (const v of VECTORS.accepted) {
    const result = verify({
      secret: v.secret,
      timestamp: v.timestamp ?? undefined,
      signatureHeader: v.signature_header ?? undefined,
      rawBody: v.raw_body,
      now: new Date(v.now * 1000),
      toleranceSeconds: v.tolerance_seconds,
    });
    assert.deepEqual(result, { ok: true }, v.name);
  }
});

test('property: sign is HMAC-SHA256 over "timestamp.body", and verify accepts exactly that', () => {
  fc.assert(
    fc.property(
      fc.string({ minLength: 1, maxLength: 64 }),
      fc.nat(2_000_000_000),
      fc.uint8Array({ maxLength: 512 }),
      (secret, ts, body) => {
        const header = sign(secret, ts, body);
        const expected = createHmac('sha256', Buffer.from(secret, 'utf8'))
          .update(Buffer.concat([Buffer.from(`${ts}.`), Buffer.from(body)]))
          .digest('hex');
        assert.equal(header, `sha256=${expected}`);
        assert.deepEqual(verify({ secret, timestamp: String(ts), signatureHeader: header, rawBody: body, now: ts }), { ok: true });
        if (body.length > 0) {
          const flipped = Uint8Array.from(body);
          flipped[0] = (flipped[0]! ^ 1) & 0xff;
          assert.deepEqual(verify({ secret, timestamp: String(ts), signatureHeader: header, rawBody: flipped, now: ts }), {
            ok: false,
            reason: 'signature_mismatch',
          });
        }
      },
    ),
    { numRuns: 300 },
  );
});
