/**
 * Search below HTTP: the q → FTS5 translation and the query plan that keeps
 * transcript search proportional to the page, not to the store.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase } from '../../kernel/store/database.ts';
import { SearchRepo } from './repo.ts';
import { ftsQuery } from './service.ts';

test('ftsQuery quotes every word and joins them with spaces (AND)', () => {
  assert.equal(ftsQuery('budget review'), '"budget" "review"');
  assert.equal(ftsQuery('NEAR(a b, 2)'), '"NEAR" "a" "b" "2"');
  assert.equal(ftsQuery('text: star* -x ^y "quoted"'), '"text" "star" "x" "y" "quoted"');
  assert.equal(ftsQuery("don't"), '"don" "t"');
  assert.equal(ftsQuery('Zu\u0308rich café 日本語 x2'), '"Zürich" "café" "日本語" "x2"');
});

test('ftsQuery gives null when there is no word at all', () => {
  for (const q of ['', '   ', '"', '***', '()', '-', '🙂', '\u0301']) assert.equal(ftsQuery(q), null, JSON.stringify(q));
});

test('every ftsQuery output is a valid FTS5 expression', () => {
  const db = openDatabase(':memory:');
  try {
    const samples = ['a"b', '""', 'x'.repeat(500), 'AND OR NOT', 'NEAR/3', '{text title}: a', 'a\u0000b', '\u202e abc'];
    for (const q of samples) {
      const match = ftsQuery(q);
      if (match === null) continue;
      assert.doesNotThrow(() => db.prepare('SELECT COUNT(*) FROM segments_fts WHERE segments_fts MATCH ?').get(match), q);
    }
  } finally {
    db.close();
  }
});

test('transcript hits come from a descending rowid scan, never a sort of all matches', () => {
  const db = openDatabase(':memory:');
  try {
    const plan = SearchRepo.segmentHitsPlan(db);
    assert.match(plan[0] ?? '', /^SCAN segments_fts VIRTUAL TABLE/);
    assert.ok(!plan.some((step) => /TEMP B-TREE/.test(step)), plan.join('\n'));
  } finally {
    db.close();
  }
});
