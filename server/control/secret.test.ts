import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSecret, loadOrCreateSecret, secretMatches } from './secret.ts';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'mas-secret-'));
}

test('a generated secret is 32 random bytes in base64url', () => {
  const a = generateSecret();
  assert.match(a, /^[A-Za-z0-9_-]{43}$/);
  assert.notEqual(a, generateSecret());
});

test('the secret file is created owner-only, then reused', () => {
  const dir = tempDir();
  try {
    const file = join(dir, 'control-secret');
    const first = loadOrCreateSecret(file);
    assert.equal(first.created, true);
    assert.equal(first.file, file);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(readFileSync(file, 'utf8').trim(), first.secret);

    const second = loadOrCreateSecret(file);
    assert.equal(second.created, false);
    assert.equal(second.secret, first.secret);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a secret file written by hand is trimmed, and a loose mode is tightened', () => {
  const dir = tempDir();
  try {
    const file = join(dir, 'control-secret');
    writeFileSync(file, '  my-own-secret-value \n');
    chmodSync(file, 0o644);
    assert.equal(loadOrCreateSecret(file).secret, 'my-own-secret-value');
    assert.equal(statSync(file).mode & 0o777, 0o600);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an unusable secret file is refused with a clear message', () => {
  const dir = tempDir();
  try {
    const file = join(dir, 'control-secret');
    writeFileSync(file, 'two words\n');
    assert.throws(() => loadOrCreateSecret(file), /does not hold a usable secret/);
    writeFileSync(file, '');
    assert.throws(() => loadOrCreateSecret(file), /does not hold a usable secret/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('secretMatches compares exactly, whatever the lengths', () => {
  assert.equal(secretMatches('abc', 'abc'), true);
  assert.equal(secretMatches('abd', 'abc'), false);
  assert.equal(secretMatches('ab', 'abc'), false);
  assert.equal(secretMatches('abcd', 'abc'), false);
  assert.equal(secretMatches('', 'abc'), false);
});
