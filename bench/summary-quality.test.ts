/**
 * The summary-quality benchmark's parts that need no data set: the ROUGE
 * scorer (checked on hand-computed cases), the QMSum loader (on a tiny
 * checkout made here: the test split is never read) and the scored text.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { cleanQmsumText, loadQmsum, QmsumMissingError, type QmsumSplit } from './qmsum.ts';
import { lcsLength, rouge, rougeN, rougeTokens } from './rouge.ts';
import { configFrom, leadText, scoredText } from './summary-quality.ts';

describe('ROUGE', () => {
  test('tokens: lower-case ASCII letters and digits, nothing else, no stemming', () => {
    assert.deepEqual(rougeTokens("The Project-Manager's 2 remotes, (05:40)!"), [
      'the',
      'project',
      'manager',
      's',
      '2',
      'remotes',
      '05',
      '40',
    ]);
    assert.deepEqual(rougeTokens(''), []);
  });

  test('ROUGE-1 and ROUGE-2 F1, with clipped counts', () => {
    // candidate "the cat the cat" vs reference "the cat sat": unigram overlap min(2,1)+min(2,1) = 2 → P 2/4, R 2/3.
    const c = rougeTokens('the cat the cat');
    const r = rougeTokens('the cat sat');
    const p1 = 2 / 4;
    const r1 = 2 / 3;
    assert.ok(Math.abs(rougeN(c, r, 1) - (2 * p1 * r1) / (p1 + r1)) < 1e-12);
    // bigrams: candidate {the cat ×2, cat the}, reference {the cat, cat sat}: overlap 1 → P 1/3, R 1/2.
    assert.ok(Math.abs(rougeN(c, r, 2) - (2 * (1 / 3) * (1 / 2)) / (1 / 3 + 1 / 2)) < 1e-12);
    assert.equal(rougeN([], r, 1), 0);
    assert.equal(rougeN(['x'], ['x'], 2), 0, 'no bigram at all is 0, not NaN');
  });

  test('ROUGE-L by the longest common subsequence of the whole texts', () => {
    assert.equal(lcsLength(rougeTokens('a b c d e'), rougeTokens('a x c y e')), 3);
    assert.equal(lcsLength([], ['a']), 0);
    const s = rouge('police killed the gunman', 'police kill the gunman');
    assert.equal(s.rougeL, 0.75);
    assert.equal(s.rouge1, 0.75);
    assert.ok(Math.abs(s.rouge2 - 1 / 3) < 1e-12);
    assert.deepEqual(rouge('same words here', 'Same words, here.'), { rouge1: 1, rouge2: 1, rougeL: 1 });
  });
});

describe('QMSum loader', () => {
  function checkout(): string {
    const dir = mkdtempSync(join(tmpdir(), 'mas-qmsum-'));
    const meeting = (answer: string) =>
      JSON.stringify({
        general_query_list: [{ query: 'Summarize the whole meeting.', answer }],
        meeting_transcripts: [
          { speaker: 'Project Manager', content: "Um {vocalsound} this is the kick-off meeting . We do n't have much time ." },
          { speaker: 'Marketing', content: '{disfmarker}' },
          { speaker: 'Marketing', content: 'Mm-hmm , okay .' },
        ],
      });
    for (const [domain, split, name] of [
      ['Product', 'train', 'ES2002a'],
      ['Product', 'val', 'ES2006a'],
      ['Committee', 'train', 'covid_1'],
      ['Product', 'test', 'ES2004a'],
    ] as const) {
      mkdirSync(join(dir, 'data', domain, split), { recursive: true });
      writeFileSync(join(dir, 'data', domain, split, `${name}.json`), meeting(`Summary of ${name}.`));
    }
    return dir;
  }

  test('reads train and val by domain, cleans QMSum marks, gives each turn times', () => {
    const dir = checkout();
    try {
      const all = loadQmsum({ source: dir, splits: ['train', 'val'] });
      assert.deepEqual(
        all.map((m) => [m.split, m.domain, m.meeting]),
        [
          ['train', 'product', 'ES2002a'],
          ['train', 'committee', 'covid_1'],
          ['val', 'product', 'ES2006a'],
        ],
      );
      const [first] = all;
      assert.equal(first!.reference, 'Summary of ES2002a.');
      assert.deepEqual(
        first!.transcript.map((t) => t.content),
        ["Um this is the kick-off meeting. We don't have much time.", 'Mm-hmm, okay.'],
      );
      assert.ok(first!.transcript[1]!.start > first!.transcript[0]!.end);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('never reads the test split; a missing source says how to get QMSum', () => {
    const dir = checkout();
    try {
      assert.throws(() => loadQmsum({ source: dir, splits: ['test' as QmsumSplit] }), /test split is not read/);
      assert.throws(() => configFrom({ tiny: false, options: { splits: 'train,test' } }), /never read/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    assert.throws(() => loadQmsum({ source: join(tmpdir(), 'no-such-qmsum-here'), splits: ['val'] }), QmsumMissingError);
    assert.throws(() => loadQmsum({ source: join(tmpdir(), 'no-such-qmsum-here'), splits: ['val'] }), /npm run qmsum:fetch/);
  });

  test('cleaning keeps words and fixes tokenised punctuation', () => {
    assert.equal(cleanQmsumText("So {vocalsound} we 're done , right ?"), "So we're done, right?");
  });
});

describe('scoring', () => {
  test('time marks are not words of the summary; LEAD is the first words', () => {
    assert.equal(scoredText([{ text: '- (05:40) Alice: Ship it.\n- (1:02:03) Ben: Done.' }]), '- Alice: Ship it.\n- Ben: Done.');
    const turns = [
      { speaker: 'A', content: 'One two, three.', start: 0, end: 1 },
      { speaker: 'B', content: 'Four five.', start: 1, end: 2 },
    ];
    assert.equal(leadText(turns, 4), 'one two three four');
  });
});
