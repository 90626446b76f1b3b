import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Clause } from './catalog.ts';
import { loadClauses } from './catalog.ts';
import { catalogDrift, lintSuite } from './lint.ts';
import { NOT_CHECKABLE } from './not-checkable.ts';
import { loadChecks } from './runner/registry.ts';

const catalog: Clause[] = [
  { id: 'a.one', section: 's', statement: 'One.', kind: 'requirement', observe: 'http', expect: '' },
  { id: 'a.two', section: 's', statement: 'Two.', kind: 'requirement', observe: 'control', expect: '' },
  { id: 'a.gap', section: 's', statement: 'Gap.', kind: 'gap', observe: 'http', expect: '' },
  {
    id: 'a.conflict',
    section: 's',
    statement: 'Conflict.',
    kind: 'conflict',
    observe: 'http',
    expect: '',
    alternatives: ['x (spec uses this)', 'y'],
  },
  { id: 'a.internal', section: 's', statement: 'Internal.', kind: 'requirement', observe: 'internal', expect: '' },
];
const ok = { id: 'a/one', clauses: ['a.one'], level: 'requirement' as const, needs: [], description: 'd', requirement: 'One.' };
const notCheckable = { 'a.internal': 'not observable over HTTP, for a good reason' };

test('a clean suite: no errors; uncovered checkable clauses are listed', () => {
  const r = lintSuite({ checks: [ok], catalog, notCheckable });
  assert.deepEqual(r.errors, []);
  assert.deepEqual(r.uncovered, ['a.two', 'a.gap', 'a.conflict']);
});

test('an unknown clause id is an error', () => {
  const r = lintSuite({ checks: [{ ...ok, clauses: ['a.one', 'a.nope'] }], catalog, notCheckable });
  assert.ok(
    r.errors.some((e) => e.includes('unknown clause id "a.nope"')),
    r.errors.join('\n'),
  );
});

test('the requirement must quote the first clause verbatim', () => {
  const r = lintSuite({ checks: [{ ...ok, requirement: 'One' }], catalog, notCheckable });
  assert.ok(r.errors.some((e) => e.includes('verbatim')));
});

test('levels must match clause kinds', () => {
  assert.ok(
    lintSuite({ checks: [{ ...ok, id: 'a/g', clauses: ['a.gap'], requirement: 'Gap.' }], catalog, notCheckable }).errors.some((e) =>
      e.includes('level requirement'),
    ),
  );
  assert.ok(
    lintSuite({
      checks: [{ ...ok, id: 'a/g', clauses: ['a.gap', 'a.one'], level: 'gap', requirement: 'Gap.' }],
      catalog,
      notCheckable,
    }).errors.some((e) => e.includes('level gap')),
  );
  assert.deepEqual(
    lintSuite({
      checks: [{ ...ok, id: 'a/c', clauses: ['a.conflict'], level: 'conflict', requirement: 'Conflict.' }],
      catalog,
      notCheckable,
    }).errors,
    [],
  );
});

test('ids, needs and the not-checkable registry', () => {
  const r = lintSuite({
    checks: [ok, { ...ok }, { ...ok, id: 'Bad Id', needs: ['telepathy' as never] }],
    catalog,
    notCheckable,
    pathIds: new Map([['a/one', 'a/other']]),
  });
  assert.ok(r.errors.some((e) => e.includes('used twice')));
  assert.ok(r.errors.some((e) => e.includes('its path under checks/')));
  assert.ok(r.errors.some((e) => e.includes('<area>/<behaviour>')));
  assert.ok(r.errors.some((e) => e.includes('unknown need "telepathy"')));
  assert.ok(
    lintSuite({ checks: [ok], catalog, notCheckable: {} }).errors.some((e) => e.includes('internal clause "a.internal" is not listed')),
  );
  assert.ok(
    lintSuite({ checks: [ok], catalog, notCheckable: { ...notCheckable, 'a.two': 'a reason that is long enough' } }).errors.some((e) =>
      e.includes('needs a check, not an excuse'),
    ),
  );
  assert.ok(
    lintSuite({ checks: [{ ...ok, clauses: ['a.one', 'a.internal'] }], catalog, notCheckable }).errors.some((e) =>
      e.includes('not observable'),
    ),
  );
});

test('the real suite has no lint errors (uncovered clauses are the second pass)', async () => {
  const loaded = await loadChecks();
  const pathIds = new Map([...loaded.files].map(([id, f]) => [id, f.replace(/^checks\//, '').replace(/\.check\.ts$/, '')]));
  const r = lintSuite({ checks: loaded.checks, catalog: loadClauses(), notCheckable: NOT_CHECKABLE, pathIds, broken: loaded.broken });
  assert.deepEqual(r.errors, []);
  assert.equal(catalogDrift(), null);
});
