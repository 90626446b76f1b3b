/**
 * The Control API's shared secret (CONTROL.md, Transport and security).
 *
 * Given at start (--control-secret), or generated once (32 random bytes,
 * base64url) into <data>/control-secret, readable by the owner only, and
 * reused from there on later starts. Requests are checked in constant time:
 * both sides are hashed to SHA-256 first, so timingSafeEqual always compares
 * equal lengths and the time taken says nothing about the secret's length or
 * about how much of a guess was right.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';

export interface ControlSecret {
  secret: string;
  /** The file holding the secret, or null when it was given at start. */
  file: string | null;
  /** True when this start generated the file. */
  created: boolean;
}

const SECRET_TEXT = /^[\x21-\x7e]{1,512}$/;

export function generateSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** The secret kept in `file`, generating it (mode 0600) when the file does not exist. */
export function loadOrCreateSecret(file: string): ControlSecret {
  let text: string | null = null;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new Error(`cannot read the control secret file ${file}: ${(err as Error).message}`, { cause: err });
    }
  }
  if (text !== null) {
    const secret = text.trim();
    if (!SECRET_TEXT.test(secret)) {
      throw new Error(`the control secret file ${file} does not hold a usable secret; delete it to have a new one generated`);
    }
    // Tighten a file someone loosened: the secret is for the owner only.
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
    return { secret, file, created: false };
  }
  const secret = generateSecret();
  try {
    // wx: never overwrite a file that appeared in the meantime.
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return loadOrCreateSecret(file);
    throw new Error(`cannot write the control secret file ${file}: ${(err as Error).message}`, { cause: err });
  }
  return { secret, file, created: true };
}

/** Constant-time comparison of a presented secret with the expected one. */
export function secretMatches(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}
