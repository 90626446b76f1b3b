import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { describeSelector, matches, parseSelectors, select } from './select.ts';
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

test('section headings of API.md select the checks of the clauses under them, in any case, a heading naming its subsections too', () => {
  const sections: Record<string, string> = {
    'meetings.rename.applies': 'Endpoints > Meetings',
    'jobs.import.202-job-id': 'Endpoints > Jobs > Import',
    'jobs.state.terminal': 'States and transitions > Job states',
    'search.q.empty.400': 'Endpoints > Health, identity, search, devices, models',
  };
  const sectionOf = (id: string): string | undefined => sections[id];
  const some = [
    { id: 'meetings/rename-applies', clauses: ['meetings.rename.applies'] },
    { id: 'jobs/import-validation', clauses: ['jobs.import.202-job-id'] },
    { id: 'jobs/real-job-states', clauses: ['jobs.state.terminal'] },
    { id: 'search/q-empty', clauses: ['search.q.empty.400'] },
  ];
  const ids = (only: string[], skip: string[] = []): string[] => select(some, only, skip, sectionOf).map((c) => c.id);
  assert.deepEqual(ids(['Endpoints > Jobs > Import']), ['jobs/import-validation']);
  assert.deepEqual(ids(['endpoints > jobs']), ['jobs/import-validation'], 'a heading takes its subsections');
  assert.deepEqual(ids(['IMPORT']), ['jobs/import-validation'], 'one heading of the path, any case');
  assert.deepEqual(ids(['Job states']), ['jobs/real-job-states']);
  assert.deepEqual(ids(['Endpoints']), ['meetings/rename-applies', 'jobs/import-validation', 'search/q-empty']);
  assert.deepEqual(ids(['Endpoints'], ['Meetings']), ['jobs/import-validation', 'search/q-empty']);
  assert.deepEqual(ids(['Jobs >Import']), ['jobs/import-validation'], 'spaces around > do not matter');
  assert.deepEqual(ids(['Endpoints > Import']), [], 'the headings of a path are consecutive');
  assert.deepEqual(ids(['Job']), [], 'a whole heading, not a word of one');
  // A heading holding commas survives the comma-separated list when it is a heading of the catalog.
  const headings = ['Endpoints > Health, identity, search, devices, models'];
  assert.deepEqual(parseSelectors(['health, identity, search, devices, models,meetings/'], headings), [
    'health, identity, search, devices, models',
    'meetings/',
  ]);
  assert.deepEqual(parseSelectors(['a,b'], headings), ['a', 'b']);
  assert.deepEqual(ids(parseSelectors(['Health, identity, search, devices, models'], headings)), ['search/q-empty']);
  // The real catalog: every section heading selects some check of the suite's kind of ids.
  assert.ok(matches({ id: 'x/y', clauses: ['jobs.import.202-job-id'] }, 'endpoints > jobs > import'));
  const described = describeSelector('Job states', some, sectionOf);
  assert.match(described, /section "States and transitions > Job states"/);
  assert.match(described, /1 check/);
});
