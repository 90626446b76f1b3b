import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { refuses } from './assert-refused.ts';
import { parseCtm, parseRttmStrict, parseStm } from './nist-formats.ts';

describe('parseStm', () => {
  const stm = [
    ';; a comment',
    'm 1 B 2.0 4.0 <o,f0,male> fine thanks',
    'm 1 A 0.0 3.0 hello there',
    'm 1 A 5 6 ignore_time_segment_in_scoring',
    '',
  ].join('\n');

  it('reads segments in time order with their speakers, labels skipped', () => {
    const h = parseStm(stm);
    assert.deepEqual(
      h.words.map((w) => [w.text, w.speaker]),
      [
        ['hello', 'A'],
        ['there', 'A'],
        ['fine', 'B'],
        ['thanks', 'B'],
      ],
    );
    assert.deepEqual(h.words[0], { text: 'hello', start: 0, end: 1.5, speaker: 'A' });
    assert.equal(h.turns?.length, 3);
  });

  it('refuses a short line, a bad time, an end before the start, a broken label and a second recording', () => {
    refuses(() => parseStm('m 1 A 0.0'), 'line 1', /<file> <channel> <speaker> <start> <end>/);
    refuses(() => parseStm('m 1 A zero 1.0 hi'), 'line 1', /start time \(field 4\).*"zero"/);
    refuses(() => parseStm('m 1 A 2.0 1.0 hi'), 'line 1', /end time \(1\) at or after the start \(2\)/);
    refuses(() => parseStm('m 1 A 0 1 <o,f0 male> hi'), 'line 1', /label/);
    refuses(() => parseStm('m 1 A 0 1 hi\nn 1 A 1 2 there'), 'line 2', /one recording per file \("m"\), got "n"/);
  });
});

describe('parseCtm', () => {
  it('reads words sorted by time, with or without a confidence', () => {
    const h = parseCtm('m 1 0.50 0.20 there 0.9\nm 1 0.10 0.30 hello\n;; end\n');
    assert.deepEqual(
      h.words.map((w) => [w.text, w.start, w.end]),
      [
        ['hello', 0.1, 0.4],
        ['there', 0.5, 0.7],
      ],
    );
    assert.equal(h.turns, null);
  });

  it('refuses wrong field counts, bad numbers and confidences', () => {
    refuses(() => parseCtm('m 1 0.5 hello'), 'line 1', /5 or 6 fields/);
    refuses(() => parseCtm('m 1 0.1 0.2 a\nm 1 0.5 0.2 b c d'), 'line 2', /5 or 6 fields/);
    refuses(() => parseCtm('m 1 0.5 -0.2 hello'), 'line 1', /duration \(field 4\)/);
    refuses(() => parseCtm('m 1 0.5 0.2 hello high'), 'line 1', /confidence \(field 6\)/);
  });
});

describe('parseRttmStrict', () => {
  it('reads SPEAKER lines and skips other record types', () => {
    const h = parseRttmStrict('SPKR-INFO m 1 <NA> <NA> <NA> unknown A <NA> <NA>\nSPEAKER m 1 0.5 1.25 <NA> <NA> A <NA> <NA>\n');
    assert.deepEqual(h.turns, [{ speaker: 'A', start: 0.5, end: 1.75 }]);
  });

  it('refuses unknown records, short SPEAKER lines and bad times', () => {
    refuses(() => parseRttmStrict('SPEEKER m 1 0 1 <NA> <NA> A <NA> <NA>'), 'line 1', /an RTTM record/);
    refuses(() => parseRttmStrict('SPEAKER m 1 0 1 <NA> <NA> A'), 'line 1', /at least 9 fields/);
    refuses(() => parseRttmStrict('SPEAKER m 1 0 1 <NA> <NA> A <NA> <NA>\nSPEAKER m 1 x 1 <NA> <NA> A <NA> <NA>'), 'line 2', /start time/);
  });
});
