import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  sessionIdFor,
  speakerTurns,
  truthCtm,
  truthFormatPaths,
  truthRttm,
  truthSegLst,
  truthStm,
  truthTokens,
  writeTruthFormats,
} from './truth-formats.ts';

const w = (text: string, start: number, end: number, speaker: string) => ({ text, start, end, speaker });

/** A hand-made truth with overlap: B starts talking under A, and C backchannels under B. */
const OVERLAPPING_TRUTH = {
  words: [
    w('So', 0.5, 0.7, 'A'),
    w('the', 0.7, 0.8, 'A'),
    w('follow-up', 0.8, 1.4, 'A'),
    w('Wait,', 1.2, 1.5, 'B'),
    w('is', 1.45, 1.6, 'A'),
    w('what', 1.5, 1.7, 'B'),
    w('about', 1.7, 2.0, 'B'),
    w('Mm-hmm.', 1.9, 2.3, 'C'),
    w('Q3?', 2.0, 2.6, 'B'),
    w('Right.', 3.4, 3.8, 'A'),
  ],
};

describe('truthTokens', () => {
  it('normalizes words and shares a split word’s time between its tokens', () => {
    const tokens = truthTokens(OVERLAPPING_TRUTH);
    assert.deepEqual(
      tokens.map((t) => t.word),
      // hmm (2.1 s) is the second half of mm-hmm: after B's q3 (2.0 s).
      ['so', 'the', 'follow', 'up', 'wait', 'is', 'what', 'about', 'mm', 'q3', 'hmm', 'right'],
    );
    const follow = tokens.filter((t) => t.word === 'follow' || t.word === 'up');
    assert.deepEqual(
      follow.map((t) => [t.start, t.end]),
      [
        [0.8, 1.1],
        [1.1, 1.4],
      ],
    );
  });
});

describe('speakerTurns', () => {
  it('keeps one speaker’s turn open across another speaker’s overlapping words', () => {
    const turns = speakerTurns(truthTokens(OVERLAPPING_TRUTH));
    assert.deepEqual(
      turns.map((t) => [t.speaker, t.start, t.end, t.words.join(' ')]),
      [
        ['A', 0.5, 1.6, 'so the follow up is'],
        ['B', 1.2, 2.6, 'wait what about q3'],
        ['C', 1.9, 2.3, 'mm hmm'],
        // 1.8 s after A's last word: a new turn.
        ['A', 3.4, 3.8, 'right'],
      ],
    );
  });

  it('joins a speaker’s words closer than the gap and splits at the gap', () => {
    const tokens = truthTokens({ words: [w('a', 0, 1, 'S1'), w('b', 1.49, 2, 'S1'), w('c', 2.5, 3, 'S1')] });
    assert.deepEqual(
      speakerTurns(tokens).map((t) => [t.start, t.end]),
      [
        [0, 2],
        [2.5, 3],
      ],
    );
    assert.equal(speakerTurns(tokens, 0.6).length, 1);
  });
});

describe('the formats', () => {
  const tokens = truthTokens(OVERLAPPING_TRUTH);
  const turns = speakerTurns(tokens);

  it('RTTM: one SPEAKER line per turn with start and duration', () => {
    const lines = truthRttm(turns, 'standup').trim().split('\n');
    assert.equal(lines.length, 4);
    assert.equal(lines[1], 'SPEAKER standup 1 1.200 1.400 <NA> <NA> B <NA> <NA>');
  });

  it('STM: a comment, then session, channel, speaker, start, end and words per turn', () => {
    const lines = truthStm(turns, 'standup').trim().split('\n');
    assert.match(lines[0]!, /^;;/);
    assert.equal(lines[3], 'standup 1 C 1.900 2.300 mm hmm');
  });

  it('CTM: one line per token, ordered by start, overlapping words included', () => {
    const lines = truthCtm(tokens, 'standup').trim().split('\n');
    assert.equal(lines.length, 12);
    assert.equal(lines[4], 'standup 1 1.200 0.300 wait');
    assert.equal(lines[5], 'standup 1 1.450 0.150 is');
  });

  it('SegLST: the fields meeteval reads', () => {
    assert.deepEqual(truthSegLst(turns, 'standup')[2], {
      session_id: 'standup',
      speaker: 'C',
      start_time: 1.9,
      end_time: 2.3,
      words: 'mm hmm',
    });
  });

  it('speaker labels with spaces become one field', () => {
    const t = speakerTurns(truthTokens({ words: [w('hi', 0, 1, 'Alice Moreau')] }));
    assert.match(truthRttm(t, 'x'), / Alice_Moreau /);
  });
});

describe('paths and session ids', () => {
  it('puts the formats beside the truth file and names the session after it', () => {
    assert.deepEqual(truthFormatPaths('out/standup.truth.json'), {
      rttm: 'out/standup.rttm',
      stm: 'out/standup.stm',
      ctm: 'out/standup.ctm',
      seglst: 'out/standup.seglst.json',
    });
    assert.equal(sessionIdFor('out/my meeting.truth.json'), 'my_meeting');
  });

  it('writes all four files', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'truth-formats-'));
    try {
      const paths = await writeTruthFormats(OVERLAPPING_TRUTH, path.join(dir, 'm.truth.json'));
      assert.match(await readFile(paths.rttm, 'utf8'), /^SPEAKER m 1 0\.500/);
      const seglst = JSON.parse(await readFile(paths.seglst, 'utf8')) as unknown[];
      assert.equal(seglst.length, 4);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
