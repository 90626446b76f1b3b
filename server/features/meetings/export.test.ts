/**
 * The Markdown and plain-text renderings of an export, without HTTP.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ExportData } from './service.ts';
import { contentDisposition, escapeMarkdown, formatTimestamp, renderMarkdown, renderText, safeAsciiName } from './export.ts';

function data(
  over: { title?: string; summaryText?: string | null; sections?: { title: string; text: string }[]; texts?: string[] } = {},
): ExportData {
  const title = over.title ?? 'Weekly sync';
  const texts = over.texts ?? ['Good morning.', 'Hi!'];
  const summaryText = over.summaryText === undefined ? 'All good.' : over.summaryText;
  return {
    meeting: {
      id: 'm1',
      title,
      created_at: '2026-11-20T09:05:00.000Z',
      updated_at: '2026-11-20T09:05:00.000Z',
      source: 'fixture',
      language: null,
      duration_seconds: 75.9,
      has_recording: false,
    },
    transcript: {
      meeting_id: 'm1',
      title,
      segments: texts.map((text, i) => ({
        index: i,
        speaker: `S${i + 1}`,
        speaker_name: i === 0 ? 'Alice' : null,
        start: i * 62.7,
        end: i * 62.7 + 5,
        text,
        words: [],
      })),
      speakers: [],
    },
    summary:
      summaryText === null
        ? null
        : {
            meeting_id: 'm1',
            status: 'ready',
            result: { text: summaryText, sections: over.sections ?? [], template_id: null, model: null, source: 'manual' },
            regeneration_failed: false,
            error: null,
            updated_at: '2026-11-20T09:05:00.000Z',
          },
  };
}

describe('Markdown', () => {
  test('heading, date and duration, summary, transcript with names or keys and timestamps', () => {
    assert.equal(
      renderMarkdown(data()),
      [
        '# Weekly sync',
        '',
        '**Date:** 2026-11-20 09:05 UTC · **Duration:** 00:01:15',
        '',
        '## Summary',
        '',
        'All good.',
        '',
        '## Transcript',
        '',
        '**[00:00:00] Alice:** Good morning.',
        '',
        '**[00:01:02] S2:** Hi!',
        '',
      ].join('\n'),
    );
  });

  test('markup in user text renders literally', () => {
    const md = renderMarkdown(
      data({ title: '# x *y* _z_ [l](http://e) <b>&amp;</b> `c` | ~s~ #', texts: ['- not a list', '1. not a list', '> no quote'] }),
    );
    const heading = md.split('\n')[0];
    assert.equal(heading, '# \\# x \\*y\\* \\_z\\_ \\[l\\](http://e) \\<b\\>\\&amp;\\</b\\> \\`c\\` \\| \\~s\\~ \\#');
    assert.match(md, /\*\* \\- not a list\n/);
    assert.match(md, /\*\* 1\\\. not a list\n/);
    assert.match(md, /\*\* \\> no quote\n/);
  });

  test('line-start markup is escaped at the start of summary lines; "- " lines are a list, other lines paragraphs', () => {
    const md = renderMarkdown(data({ summaryText: '# Not a heading\n- item\n    indented code?\n\n2) second\n===' }));
    assert.match(md, /## Summary\n\n\\# Not a heading\n\n- item\n\nindented code\?\n\n2\\\) second\n\n\\===\n/);
    assert.doesNotMatch(md, /\\\n/, 'no hard-break backslash at a line end');
  });

  test('summary sections become subheadings; no summary means no Summary section', () => {
    const withSections = renderMarkdown(data({ sections: [{ title: 'Actions', text: 'Ship *it*' }] }));
    assert.match(withSections, /### Actions\n\nShip \\\*it\\\*\n/);
    assert.doesNotMatch(renderMarkdown(data({ summaryText: null })), /## Summary/);
  });

  test('an empty transcript says so; a blank title falls back', () => {
    const md = renderMarkdown(data({ texts: [], title: ' ' }));
    assert.match(md, /^# Untitled meeting\n/);
    assert.match(md, /## Transcript\n\n_No transcript\._\n$/);
  });

  test('line breaks inside a segment or title cannot start a new block', () => {
    const md = renderMarkdown(data({ title: 'a\n# b', texts: ['one\n\n# two'] }));
    assert.ok(md.startsWith('# a \\# b\n'));
    assert.match(md, /Alice:\*\* one \\# two\n/);
  });
});

describe('plain text', () => {
  test('the same parts without markup', () => {
    assert.equal(
      renderText(data({ title: '*Sync*' })),
      [
        '*Sync*',
        '======',
        '',
        'Date: 2026-11-20 09:05 UTC · Duration: 00:01:15',
        '',
        'SUMMARY',
        '',
        'All good.',
        '',
        'TRANSCRIPT',
        '',
        '[00:00:00] Alice: Good morning.',
        '[00:01:02] S2: Hi!',
        '',
      ].join('\n'),
    );
  });
});

describe('pieces', () => {
  test('timestamps are hh:mm:ss, rounded down, hours unbounded', () => {
    assert.deepEqual([0, 59.99, 60, 3599, 3600, 360000.5].map(formatTimestamp), [
      '00:00:00',
      '00:00:59',
      '00:01:00',
      '00:59:59',
      '01:00:00',
      '100:00:00',
    ]);
  });

  test('file names are safe ASCII; the exact title rides in filename*', () => {
    assert.equal(safeAsciiName('Café "Weekly" / sync\\..'), 'Cafe _Weekly_ _ sync');
    assert.equal(safeAsciiName('日本語'), 'meeting');
    assert.equal(safeAsciiName('../../etc/passwd'), 'etc_passwd');
    const header = contentDisposition('Réunion "Q4"', 'md');
    assert.equal(header, `inline; filename="Reunion _Q4.md"; filename*=UTF-8''R%C3%A9union%20%22Q4%22.md`);
    assert.match(header, /^[\x20-\x7e]+$/);
  });

  test('escapeMarkdown leaves plain prose alone', () => {
    assert.equal(escapeMarkdown("It's 5 o'clock, fine (really) & done."), "It's 5 o'clock, fine (really) & done.");
  });
});
