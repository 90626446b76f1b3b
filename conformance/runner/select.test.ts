import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { matches, parseSelectors, select } from './select.ts';
import { inShard, parseShard, shardOf } from './shard.ts';

const checks = [
  { id: 'meetings/rename-applies', clauses: ['meetings.rename.applies'] },
  { id: 'meetings/delete-cascade', clauses: ['meetings.delete.cascade'] },
  { id: 'auth/scope-matrix', clauses: ['auth.missing-scope.403', 'meetings.rename.scope-write'] },
  { id: 'search/q-empty', clauses: ['search.q.empty.400', 'errors.code.bad_request.400'] },
];

test('selectors match check ids, clause prefixes and bare areas', () => {
  assert.ok(matches(checks[0]!, 'meetings/'));
  assert.ok(matches(checks[0]!, 'meetings/rename-applies'));
  assert.ok(matches(checks[0]!, 'meetings.rename'));
  assert.ok(matches(checks[2]!, 'meetings.rename.scope'), 'a clause of another area selects the check that covers it');
  assert.ok(matches(checks[3]!, 'errors.'));
  assert.ok(matches(checks[1]!, 'meetings'));
  assert.ok(!matches(checks[3]!, 'meetings'));
  assert.ok(!matches(checks[0]!, ''));
});

test('--only and --skip, with --skip winning', () => {
  assert.deepEqual(
    select(checks, ['meetings/'], []).map((c) => c.id),
    ['meetings/rename-applies', 'meetings/delete-cascade'],
  );
  assert.deepEqual(
    select(checks, ['meetings'], ['meetings/delete']).map((c) => c.id),
    ['meetings/rename-applies', 'auth/scope-matrix'],
  );
  assert.deepEqual(select(checks, [], ['auth.']).length, 3);
  assert.deepEqual(parseSelectors(['a,b', ' c ', '']), ['a', 'b', 'c']);
});

test('shards: deterministic, disjoint, complete, and independent of the rest of the selection', () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(fc.stringMatching(/^[a-z]{1,8}\/[a-z-]{1,12}$/), { minLength: 1, maxLength: 60 }),
      fc.integer({ min: 1, max: 9 }),
      (ids, n) => {
        const items = ids.map((id) => ({ id }));
        const parts = Array.from({ length: n }, (_, k) => inShard(items, { index: k + 1, count: n }).map((c) => c.id));
        assert.deepEqual(parts.flat().sort(), [...ids].sort());
        for (const id of ids) assert.equal(parts.filter((p) => p.includes(id)).length, 1);
        for (const id of ids) assert.equal(shardOf(id, n), shardOf(id, n));
        const sub = inShard(items.slice(0, Math.ceil(items.length / 2)), { index: 1, count: n }).map((c) => c.id);
        assert.ok(sub.every((id) => parts[0]!.includes(id)));
      },
    ),
  );
  assert.deepEqual(parseShard('2/4'), { index: 2, count: 4 });
  assert.throws(() => parseShard('5/4'));
  assert.throws(() => parseShard('x'));
});
