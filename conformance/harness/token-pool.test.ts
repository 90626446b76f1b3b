import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { TokenPool, TokensFileError, describeRequest, effectiveRequestScopes, fits, readTokensFile } from './token-pool.ts';
import type { PoolToken } from './token-pool.ts';

const tok = (
  token: string,
  scopes: string[],
  origin: PoolToken['origin'] = 'loopback',
  kind: PoolToken['kind'] = 'standard',
): PoolToken => ({ token, tokenId: '', scopes, origin, kind, source: token });

test('exact requests need the same effective scopes, origin and kind; "at least" ones a superset', () => {
  const full = tok('full', ['read', 'record', 'write', 'delete'], 'loopback', 'first_party');
  assert.ok(fits(full, { scopes: ['read'] }, false), 'a superset serves an at-least request');
  assert.ok(!fits(full, { scopes: ['read'] }, true), 'but not an exact one');
  assert.ok(fits(full, { scopes: ['read', 'record', 'write', 'delete'] }, true), 'no kind named: a first-party token serves');
  assert.ok(!fits(full, { scopes: ['read', 'record', 'write', 'delete'], kind: 'standard' }, true), 'a named kind must match');
  assert.ok(!fits(full, { scopes: ['read'], origin: 'lan' }, false), 'the origin must match');
  assert.deepEqual(effectiveRequestScopes({ scopes: ['admin', 'read'] }), ['read']);
  assert.deepEqual(
    effectiveRequestScopes({ scopes: ['read', 'delete'], origin: 'paired' }),
    ['read'],
    'a paired device never holds delete',
  );
  assert.deepEqual(
    effectiveRequestScopes({ scopes: ['write'], kind: 'assistant' }),
    ['read', 'record', 'write'],
    'an assistant holds its baseline',
  );
  assert.ok(fits(tok('none', []), { scopes: ['admin'] }, true), 'a request for admin is served by a token with no scope');
  assert.equal(describeRequest({ scopes: ['write', 'read'] }), 'read+write · loopback · standard or first_party');
  const unknown: PoolToken = { ...tok('?', []), scopesKnown: false };
  assert.ok(
    fits(unknown, { scopes: ['read', 'write'] }, false) && !fits(unknown, { scopes: ['read'] }, true),
    'unknown scopes: at-least requests only',
  );
});

test('the pool hands distinct tokens to distinct holders and prefers standard tokens', () => {
  const pool = new TokenPool([tok('fp', ['read'], 'loopback', 'first_party'), tok('a', ['read']), tok('b', ['read'])]);
  assert.equal(pool.find({ scopes: ['read'] }, true)?.token, 'a');
  assert.equal(pool.find({ scopes: ['read'] }, true, new Set(['a']))?.token, 'b');
  assert.equal(pool.find({ scopes: ['read'] }, true, new Set(['a', 'b']))?.token, 'fp');
  assert.equal(pool.find({ scopes: ['write'] }, true), null);
});

test('the tokens file: objects, bare strings, environment variables; clear errors', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tokens-file-'));
  const file = path.join(dir, 'tokens.json');
  writeFileSync(
    file,
    JSON.stringify({
      tokens: ['mas_a', { token_env: 'T_READ', note: 'read' }, { token: 'mas_c', scopes: ['delete'], origin: 'lan', kind: 'assistant' }],
    }),
  );
  const entries = readTokensFile(file, { T_READ: 'mas_b' });
  assert.deepEqual(
    entries.map((e) => e.token),
    ['mas_a', 'mas_b', 'mas_c'],
  );
  assert.deepEqual(
    { scopes: entries[2]!.scopes, origin: entries[2]!.origin, kind: entries[2]!.kind, index: entries[2]!.index },
    { scopes: ['delete'], origin: 'lan', kind: 'assistant', index: 3 },
  );
  for (const [content, message] of [
    ['{"tokens": [{"token": "x", "origin": "moon"}]}', /origin/],
    ['{"tokens": [{"token_env": "MISSING"}]}', /MISSING is not set/],
    ['{"tokens": [{"tokn": "x"}]}', /unknown field tokn/],
    ['{"nothing": 1}', /expected \{"tokens"/],
    ['not json', /--tokens/],
  ] as const) {
    writeFileSync(file, content);
    assert.throws(
      () => readTokensFile(file, {}),
      (err: unknown) => err instanceof TokensFileError && message.test(err.message),
    );
  }
});
