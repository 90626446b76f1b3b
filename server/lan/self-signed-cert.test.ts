/**
 * The LAN certificate: a well-formed self-signed X.509 v3 certificate made
 * with node:crypto alone, stored once (owner-only files), reused, and
 * replaced when broken or close to expiry. A TLS handshake with it is in
 * lan-listener.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CERT_COMMON_NAME, createSelfSignedCertificate, loadOrCreateTlsMaterial, tlsPaths } from './self-signed-cert.ts';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'mas-tls-'));
}

test('the certificate is self-signed, v3, for TLS servers, naming localhost and the loopback addresses', () => {
  const now = new Date('2026-11-20T09:00:00Z');
  const tls = createSelfSignedCertificate({ now, dnsNames: ['localhost', 'meeting-box'] });
  const x509 = new X509Certificate(tls.cert);
  assert.equal(x509.subject, `CN=${CERT_COMMON_NAME}`);
  assert.equal(x509.issuer, x509.subject);
  assert.ok(x509.verify(x509.publicKey), 'signed by its own key');
  assert.ok(x509.checkPrivateKey(createPrivateKey(tls.key)));
  assert.equal(x509.ca, false);
  assert.equal(x509.subjectAltName, 'DNS:localhost, DNS:meeting-box, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
  assert.deepEqual(x509.keyUsage, ['1.3.6.1.5.5.7.3.1']);
  assert.ok(Date.parse(x509.validFrom) <= now.getTime());
  assert.equal(Math.round((Date.parse(x509.validTo) - now.getTime()) / 86_400_000), 825);
  assert.equal(x509.fingerprint256, tls.fingerprint256);
  assert.equal(x509.checkHost('localhost'), 'localhost');
  assert.equal(x509.checkIP('127.0.0.1'), '127.0.0.1');
  assert.match(tls.key, /^-----BEGIN PRIVATE KEY-----\n/);
});

test('generated once into <data>/tls (0700, files 0600), then reused', () => {
  const dir = tempDir();
  try {
    const first = loadOrCreateTlsMaterial(dir);
    const paths = tlsPaths(dir);
    assert.equal(statSync(paths.dir).mode & 0o777, 0o700);
    assert.equal(statSync(paths.key).mode & 0o777, 0o600);
    assert.equal(statSync(paths.cert).mode & 0o777, 0o600);
    const second = loadOrCreateTlsMaterial(dir);
    assert.equal(second.fingerprint256, first.fingerprint256);
    assert.equal(second.key, first.key);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('replaced when a file is missing, broken, mismatched, or within 30 days of expiry', () => {
  const dir = tempDir();
  try {
    const paths = tlsPaths(dir);
    const original = loadOrCreateTlsMaterial(dir);

    writeFileSync(paths.cert, 'not a certificate');
    const afterBroken = loadOrCreateTlsMaterial(dir);
    assert.notEqual(afterBroken.fingerprint256, original.fingerprint256);

    const other = createSelfSignedCertificate();
    writeFileSync(paths.key, other.key);
    const afterMismatch = loadOrCreateTlsMaterial(dir);
    assert.notEqual(afterMismatch.fingerprint256, afterBroken.fingerprint256);
    assert.ok(new X509Certificate(afterMismatch.cert).checkPrivateKey(createPrivateKey(afterMismatch.key)));

    rmSync(paths.key);
    const afterMissing = loadOrCreateTlsMaterial(dir);
    assert.notEqual(afterMissing.fingerprint256, afterMismatch.fingerprint256);

    const nearExpiry = new Date(Date.now() + 800 * 86_400_000);
    assert.equal(loadOrCreateTlsMaterial(dir, new Date(Date.now() + 700 * 86_400_000)).fingerprint256, afterMissing.fingerprint256);
    assert.notEqual(loadOrCreateTlsMaterial(dir, nearExpiry).fingerprint256, afterMissing.fingerprint256);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
