/**
 * The LAN listener's self-signed TLS certificate, generated once and kept in
 * the data folder: <data>/tls/key.pem and <data>/tls/cert.pem, both mode 0600
 * in a 0700 folder (docs/decisions/016-lan-mode.md).
 *
 * Pure Node: an ECDSA P-256 key from node:crypto and a minimal X.509 v3
 * certificate whose DER this file writes itself (a few ASN.1 encoders
 * below), signed with ecdsa-with-SHA256. No openssl binary is needed.
 *
 * The certificate names localhost, this machine's host name, 127.0.0.1 and
 * ::1; LAN addresses change, so clients are expected to pin the certificate
 * by its SHA-256 fingerprint (trust on first use), not to check names.
 * It is valid for 825 days and replaced when fewer than 30 remain, or when
 * the files are missing, unreadable or do not belong together.
 */
import { createPrivateKey, generateKeyPairSync, randomBytes, sign, X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { tightenDir } from '../kernel/store/owner-only.ts';

export interface TlsMaterial {
  /** PEM, PKCS#8. */
  key: string;
  /** PEM. */
  cert: string;
  /** SHA-256 fingerprint as X509Certificate prints it (AA:BB:...). */
  fingerprint256: string;
}

const VALIDITY_DAYS = 825;
const RENEW_WHEN_DAYS_LEFT = 30;
const DAY_MS = 86_400_000;
export const CERT_COMMON_NAME = 'Meeting Automation Service LAN (self-signed)';

export function tlsPaths(dataDir: string) {
  const dir = join(dataDir, 'tls');
  return { dir, key: join(dir, 'key.pem'), cert: join(dir, 'cert.pem') };
}

/** Reads the certificate of the data folder, or makes (and stores) a new one. */
export function loadOrCreateTlsMaterial(dataDir: string, now: Date = new Date()): TlsMaterial {
  const paths = tlsPaths(dataDir);
  mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  tightenDir(paths.dir); // a folder made by an older build or by hand keeps its mode otherwise
  const existing = readUsable(paths, now);
  if (existing !== null) return existing;
  const fresh = createSelfSignedCertificate({ now });
  writePrivate(paths.key, fresh.key);
  writePrivate(paths.cert, fresh.cert);
  return fresh;
}

function readUsable(paths: { key: string; cert: string }, now: Date): TlsMaterial | null {
  if (!existsSync(paths.key) || !existsSync(paths.cert)) return null;
  try {
    const key = readFileSync(paths.key, 'utf8');
    const cert = readFileSync(paths.cert, 'utf8');
    const x509 = new X509Certificate(cert);
    if (!x509.checkPrivateKey(createPrivateKey(key))) return null;
    if (Date.parse(x509.validTo) - now.getTime() < RENEW_WHEN_DAYS_LEFT * DAY_MS) return null;
    // Files written by an older build or copied around keep owner-only modes.
    chmodSync(paths.key, 0o600);
    chmodSync(paths.cert, 0o600);
    return { key, cert, fingerprint256: x509.fingerprint256 };
  } catch {
    return null;
  }
}

/** Written under a temporary name and renamed, so a crash never leaves half a key. */
function writePrivate(file: string, text: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, text, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, file);
}

/** A new key and self-signed certificate (nothing is written). */
export function createSelfSignedCertificate(opts: { now?: Date; commonName?: string; dnsNames?: string[] } = {}): TlsMaterial {
  const now = opts.now ?? new Date();
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });

  const dnsNames = opts.dnsNames ?? defaultDnsNames();
  const ecdsaWithSha256 = seq(oid('1.2.840.10045.4.3.2'));
  const name = seq(set(seq(oid('2.5.4.3'), utf8(opts.commonName ?? CERT_COMMON_NAME))));
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f; // positive

  const extensions = seq(
    extension('2.5.29.19', true, seq()), // basicConstraints: not a CA
    extension('2.5.29.15', true, tlv(0x03, Buffer.from([0x07, 0x80]))), // keyUsage: digitalSignature
    extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))), // extKeyUsage: serverAuth
    extension(
      '2.5.29.17', // subjectAltName
      false,
      seq(
        ...dnsNames.map((n) => tlv(0x82, Buffer.from(n, 'ascii'))),
        tlv(0x87, Buffer.from([127, 0, 0, 1])),
        tlv(0x87, Buffer.from([...Array<number>(15).fill(0), 1])),
      ),
    ),
  );

  const tbs = seq(
    tlv(0xa0, integer(Buffer.from([2]))), // version v3
    integer(serial),
    ecdsaWithSha256,
    name,
    seq(time(new Date(now.getTime() - 3_600_000)), time(new Date(now.getTime() + VALIDITY_DAYS * DAY_MS))),
    name,
    Buffer.from(spki),
    tlv(0xa3, extensions),
  );
  const signature = sign('sha256', tbs, privateKey); // DER-encoded ECDSA signature
  const der = seq(tbs, ecdsaWithSha256, bitString(signature));

  const cert = pem('CERTIFICATE', der);
  const key = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return { key, cert, fingerprint256: new X509Certificate(cert).fingerprint256 };
}

function defaultDnsNames(): string[] {
  const names = ['localhost'];
  const own = hostname();
  if (/^[A-Za-z0-9.-]{1,253}$/.test(own) && own !== 'localhost') names.push(own);
  return names;
}

// ── Minimal DER (X.690) encoders ─────────────────────────────────────────

function tlv(tag: number, content: Buffer): Buffer {
  const n = content.length;
  let length: Buffer;
  if (n < 0x80) length = Buffer.from([n]);
  else if (n < 0x100) length = Buffer.from([0x81, n]);
  else if (n < 0x10000) length = Buffer.from([0x82, n >> 8, n & 0xff]);
  else length = Buffer.from([0x83, n >> 16, (n >> 8) & 0xff, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, content]);
}

function seq(...items: Buffer[]): Buffer {
  return tlv(0x30, Buffer.concat(items));
}

function set(...items: Buffer[]): Buffer {
  return tlv(0x31, Buffer.concat(items));
}

/** A non-negative INTEGER from big-endian bytes: minimal, with a 0x00 in front when the top bit is set. */
function integer(bytes: Buffer): Buffer {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  let body = bytes.subarray(i);
  if (((body[0] ?? 0) & 0x80) !== 0) body = Buffer.concat([Buffer.from([0]), body]);
  return tlv(0x02, body);
}

function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const out: number[] = [40 * (parts[0] ?? 0) + (parts[1] ?? 0)];
  for (const part of parts.slice(2)) {
    const base128: number[] = [part & 0x7f];
    let rest = part >>> 7;
    while (rest > 0) {
      base128.unshift((rest & 0x7f) | 0x80);
      rest >>>= 7;
    }
    out.push(...base128);
  }
  return tlv(0x06, Buffer.from(out));
}

function utf8(text: string): Buffer {
  return tlv(0x0c, Buffer.from(text, 'utf8'));
}

function bitString(bytes: Buffer): Buffer {
  return tlv(0x03, Buffer.concat([Buffer.from([0]), bytes]));
}

function boolean(value: boolean): Buffer {
  return tlv(0x01, Buffer.from([value ? 0xff : 0]));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return critical ? seq(oid(id), boolean(true), tlv(0x04, value)) : seq(oid(id), tlv(0x04, value));
}

/** UTCTime through 2049, GeneralizedTime after (RFC 5280, 4.1.2.5). */
function time(date: Date): Buffer {
  const iso = date.toISOString(); // 2026-11-20T09:00:00.000Z
  const digits = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  return date.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(digits.slice(2), 'ascii')) : tlv(0x18, Buffer.from(digits, 'ascii'));
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
