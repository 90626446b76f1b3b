/**
 * TokensRepo: a token is found by its raw value, and every change to the
 * table is seen by the next authenticate() at once (it keeps the tokens it
 * has found in memory, so a stale entry would let a revoked token in).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from './database.ts';
import { TokensRepo } from './tokens-repo.ts';

function withRepo(run: (repo: TokensRepo) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'mas-tokens-'));
  const db = openDatabase(join(dir, 'gateway.sqlite'));
  try {
    run(new TokensRepo(db));
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const NOW = new Date('2026-11-22T00:00:00Z');

test('a revoked, disabled or wiped token stops authenticating at once, even after it was found before', () =>
  withRepo((repo) => {
    const a = repo.create({ name: 'a', scopes: ['read'] }, NOW);
    const b = repo.create({ name: 'b', scopes: ['read', 'write'] }, NOW);
    const c = repo.create({ name: 'startup', scopes: ['read'] }, NOW);
    for (const t of [a, b, c]) assert.equal(repo.authenticate(t.token)?.id, t.record.id); // now known

    repo.setEnabled(a.record.id, false);
    assert.equal(repo.authenticate(a.token)?.enabled, false);
    repo.setEnabled(a.record.id, true);
    assert.equal(repo.authenticate(a.token)?.enabled, true);

    assert.equal(repo.delete(a.record.id), true);
    assert.equal(repo.authenticate(a.token), null);

    repo.deleteByName('startup');
    assert.equal(repo.authenticate(c.token), null);
    assert.equal(repo.authenticate(b.token)?.id, b.record.id);

    repo.deleteAll();
    assert.equal(repo.authenticate(b.token), null);
    assert.equal(repo.authenticate('mas_not-a-token'), null);
  }));

test('a caller cannot change the record it got, so the next caller gets what is stored', () =>
  withRepo((repo) => {
    const t = repo.create({ name: 'a', scopes: ['read'] }, NOW);
    const first = repo.authenticate(t.token)! as { scopes: string[]; enabled: boolean };
    assert.throws(() => first.scopes.push('delete'), TypeError);
    assert.throws(() => {
      first.enabled = false;
    }, TypeError);
    const second = repo.authenticate(t.token)!;
    assert.deepEqual(second.scopes, ['read']);
    assert.equal(second.enabled, true);
  }));
