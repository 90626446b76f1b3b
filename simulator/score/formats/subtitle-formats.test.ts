import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { refuses } from './assert-refused.ts';
import { parseSrt, parseVtt } from './subtitle-formats.ts';

describe('parseSrt', () => {
  it('reads cues, spreads their words over the cue and drops markup', () => {
    const h = parseSrt('1\r\n00:00:01,000 --> 00:00:02,000\r\nhello <i>there</i>\r\n\r\n2\r\n00:00:03,500 --> 00:00:04,000\r\nfine\r\n');
    assert.deepEqual(
      h.words.map((w) => [w.text, w.start, w.end, w.speaker]),
      [
        ['hello', 1, 1.5, null],
        ['there', 1.5, 2, null],
        ['fine', 3.5, 4, null],
      ],
    );
  });

  it('refuses a missing cue number, a bad timing and a cue that ends before it starts', () => {
    refuses(() => parseSrt('00:00:01,000 --> 00:00:02,000\nhello\n'), 'line 1', /a cue number/);
    refuses(() => parseSrt('1\n00:00:01.000 --> 00:00:02.000\nhello\n'), 'line 2', /cue timing "00:00:01,000 --> 00:00:02,500"/);
    refuses(() => parseSrt('1\n'), 'line 2', /cue timing/);
    refuses(() => parseSrt('1\n00:00:03,000 --> 00:00:02,000\nhello\n'), 'line 2', /ends at or after/);
  });
});

describe('parseVtt', () => {
  const vtt = [
    'WEBVTT - a meeting',
    '',
    'NOTE written by hand',
    '',
    'c1',
    '00:01.000 --> 00:02.000 align:start',
    '<v Alice>hello there</v>',
    '',
    '01:00:03.000 --> 01:00:04.000',
    '<v.loud Bob>fine',
    '',
  ].join('\n');

  it('reads cues with and without ids and hours, speakers from voice spans', () => {
    const h = parseVtt(vtt);
    assert.deepEqual(
      h.words.map((w) => [w.text, w.start, w.speaker]),
      [
        ['hello', 1, 'Alice'],
        ['there', 1.5, 'Alice'],
        ['fine', 3603, 'Bob'],
      ],
    );
    assert.deepEqual(h.turns, [
      { speaker: 'Alice', start: 1, end: 2 },
      { speaker: 'Bob', start: 3603, end: 3604 },
    ]);
  });

  it('has no turns when no cue names a voice', () => {
    assert.equal(parseVtt('WEBVTT\n\n00:01.000 --> 00:02.000\nhello\n').turns, null);
  });

  it('refuses a missing header, a cue without timing and a bad timing', () => {
    refuses(() => parseVtt('00:01.000 --> 00:02.000\nhello\n'), 'line 1', /"WEBVTT" on the first line/);
    refuses(() => parseVtt('WEBVTT\n\nc1\nhello\n'), 'line 4', /cue timing/);
    refuses(() => parseVtt('WEBVTT\n\n00:01,000 --> 00:02,000\nhello\n'), 'line 3', /cue timing "00:01.000 --> 00:02.500"/);
  });
});
