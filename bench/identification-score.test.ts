import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clusterPeople, judgeClusters, shares } from './identification-score.ts';

const truth = [
  { speaker: 'dana', start: 0, end: 10 },
  { speaker: 'lukas', start: 10, end: 20 },
  { speaker: 'dana', start: 20, end: 30 },
];

describe('clusterPeople', () => {
  it('pairs clusters with people by the best assignment of overlap; a left-over cluster is nobody', () => {
    const people = clusterPeople(truth, [
      { speaker: 'S1', start: 0, end: 9 },
      { speaker: 'S2', start: 9, end: 20 },
      { speaker: 'S1', start: 20, end: 30 },
      // Overlaps dana a little, but dana is S1's.
      { speaker: 'S3', start: 29, end: 30 },
    ]);
    assert.deepEqual(
      [...people],
      [
        ['S1', 'dana'],
        ['S2', 'lukas'],
        ['S3', null],
      ],
    );
  });
  it('gives no person to a cluster without overlap, and handles an empty transcript', () => {
    assert.deepEqual([...clusterPeople(truth, [{ speaker: 'S1', start: 40, end: 41 }])], [['S1', null]]);
    assert.deepEqual([...clusterPeople(truth, [])], []);
  });
});

describe('judgeClusters and shares', () => {
  const enrolled = new Map([['dana', 'Dana Whitfield']]);
  const people = new Map<string, string | null>([
    ['S1', 'dana'],
    ['S2', 'lukas'],
    ['S3', null],
  ]);

  it('is right for an enrolled person named as enrolled and a stranger left unnamed', () => {
    const v = judgeClusters(
      people,
      new Map([
        ['S1', 'Dana Whitfield'],
        ['S2', null],
        ['S3', 'S3'],
      ]),
      enrolled,
    );
    assert.deepEqual(
      v.map((x) => [x.cluster, x.enrolled, x.name, x.correct]),
      [
        ['S1', true, 'Dana Whitfield', true],
        ['S2', false, null, true],
        ['S3', false, null, true],
      ],
    );
    assert.deepEqual(shares(v), {
      named_correctly: 1,
      enrolled_clusters: 1,
      never_enrolled_named: 0,
      never_enrolled_clusters: 2,
      named_any: 1,
    });
  });

  it('counts a stranger given a name and an enrolled person left unnamed or misnamed', () => {
    const v = judgeClusters(
      people,
      new Map([
        ['S1', null],
        ['S2', 'Dana Whitfield'],
      ]),
      enrolled,
    );
    assert.deepEqual(shares(v), {
      named_correctly: 0,
      enrolled_clusters: 1,
      never_enrolled_named: 0.5,
      never_enrolled_clusters: 2,
      named_any: 1,
    });
    assert.equal(judgeClusters(people, new Map([['S1', 'Raj Patel']]), enrolled)[0]!.correct, false);
  });

  it('has no shares without clusters', () => {
    assert.deepEqual(shares([]), {
      named_correctly: null,
      enrolled_clusters: 0,
      never_enrolled_named: null,
      never_enrolled_clusters: 0,
      named_any: 0,
    });
  });
});
