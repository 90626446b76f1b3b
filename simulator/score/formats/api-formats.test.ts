import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseApiExport, parseApiJson } from './api-formats.ts';
import { refuses } from './assert-refused.ts';

const segment = (
  speaker: string,
  start: number,
  end: number,
  text: string,
  words: { text: string; start: number; end: number }[] = [],
) => ({
  index: 0,
  speaker,
  speaker_name: null,
  start,
  end,
  text,
  words,
});

describe('parseApiJson', () => {
  it('reads the transcript: word timings where given, else the text spread over the segment', () => {
    const transcript = {
      meeting_id: 'm',
      title: 't',
      speakers: [],
      segments: [segment('S2', 3, 4, 'fine thanks'), segment('S1', 0, 2, 'Hello there.', [{ text: 'Hello', start: 0.1, end: 0.5 }])],
    };
    const h = parseApiJson(JSON.stringify(transcript));
    assert.deepEqual(
      h.words.map((w) => [w.text, w.start, w.speaker]),
      [
        ['Hello', 0.1, 'S1'],
        ['fine', 3, 'S2'],
        ['thanks', 3.5, 'S2'],
      ],
    );
    assert.deepEqual(h.turns, [
      { speaker: 'S1', start: 0, end: 2 },
      { speaker: 'S2', start: 3, end: 4 },
    ]);
  });

  it('reads the export with its summary, and SegLST', () => {
    const exported = {
      meeting: { id: 'm' },
      transcript: { segments: [segment('S1', 0, 1, 'hi')] },
      summary: { result: { text: 'We agreed.' } },
    };
    assert.equal(parseApiJson(JSON.stringify(exported)).summary, 'We agreed.');
    const seglst = [{ session_id: 'm', speaker: 'A', start_time: 0, end_time: 1, words: 'hello there' }];
    assert.deepEqual(
      parseApiJson(JSON.stringify(seglst)).words.map((w) => w.text),
      ['hello', 'there'],
    );
  });

  it('refuses broken JSON with its line, and a wrong shape with its path', () => {
    refuses(() => parseApiJson('{\n  "segments": [\n    {,\n'), 'line 3 column 6', /JSON/);
    refuses(
      () => parseApiJson(JSON.stringify({ segments: [segment('S1', 0, 1, 'hi'), { speaker: 'S1', start: 'x', end: 1, text: '' }] })),
      'segments[1].start',
      /transcript/,
    );
    refuses(() => parseApiJson(JSON.stringify({ transcript: {} })), 'transcript.segments', /export/);
    refuses(() => parseApiJson('[{"speaker": "A"}]'), '[0].start_time', /SegLST/);
    refuses(() => parseApiJson('42'), 'the top level', /transcript/);
  });
});

describe('parseApiExport', () => {
  const txt = [
    'Standup',
    '=======',
    '',
    'Date: 2026-11-20 09:00 UTC · Duration: 00:01:10',
    '',
    'SUMMARY',
    '',
    'Decisions',
    '',
    '- Ship on Friday',
    '',
    'TRANSCRIPT',
    '',
    '[00:00:01] Alice: Hello there.',
    '[00:00:04] S2: Fine: thanks',
    '',
  ].join('\n');

  it('reads the txt export: speakers, texts, start times and the summary', () => {
    const h = parseApiExport(txt);
    assert.deepEqual(
      h.words.map((w) => [w.text, w.speaker]),
      [
        ['Hello', 'Alice'],
        ['there.', 'Alice'],
        ['Fine:', 'S2'],
        ['thanks', 'S2'],
      ],
    );
    assert.equal(h.words[0]!.start, 1);
    assert.equal(h.turns, null);
    assert.match(h.summary!, /Ship on Friday/);
  });

  it('reads the md export, escapes undone', () => {
    const md = '# Standup\n\n**Date:** x\n\n## Transcript\n\n**[00:00:01] Alice \\*B\\*:** it\\_s \\#1\n';
    const h = parseApiExport(md);
    assert.deepEqual(
      h.words.map((w) => [w.text, w.speaker]),
      [
        ['it_s', 'Alice *B*'],
        ['#1', 'Alice *B*'],
      ],
    );
  });

  it('refuses a document without a transcript heading and a line that is not a segment', () => {
    refuses(() => parseApiExport('Standup\n=======\n\nhello'), 'line 4', /"TRANSCRIPT" heading/);
    refuses(
      () => parseApiExport('Standup\n===\n\nTRANSCRIPT\n\n[00:00:01] Alice: hi\n00:00:02 Bob: there\n'),
      'line 7',
      /\[hh:mm:ss\] Speaker: text/,
    );
  });
});
