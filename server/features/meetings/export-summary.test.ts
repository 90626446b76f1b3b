/**
 * The exports of a meeting with a generated summary read well as files
 * (decision 078): the summary once, its sections as headings, its items as
 * plain list lines — checked raw and rendered by a Markdown renderer (marked).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { marked } from 'marked';
import { summarizeExtractively } from '../../adapters/summarize/extractive.ts';
import type { ExportData } from './service.ts';
import { renderMarkdown, renderText } from './export.ts';

const LINES: [string, string][] = [
  ['Alice', 'I wanted to go over the release plan before Friday.'],
  ['Ben', 'The portal is feature complete, but testing found two bugs in the billing page.'],
  ['Alice', 'One is a blocker. Invoices show the wrong currency for some European customers.'],
  ['Ben', 'That still leaves time for a final review on Thursday.'],
  ['Alice', 'Agreed. I will update the roadmap and send the notes to the team - by Friday.'],
];

function exportData(): ExportData {
  const segments = LINES.map(([speaker, text], i) => ({ speaker, speaker_name: null, start: i * 10, end: i * 10 + 8, text }));
  const summary = summarizeExtractively({
    title: 'Release',
    language: 'en',
    templateId: 'meeting_notes',
    meetingDate: '2026-11-23T09:00:00Z',
    segments,
  });
  return {
    meeting: {
      id: 'm1',
      title: 'Release',
      created_at: '2026-11-23T09:00:00.000Z',
      updated_at: '2026-11-23T09:00:00.000Z',
      source: 'fixture',
      language: 'en',
      duration_seconds: 50,
      has_recording: false,
    },
    transcript: {
      meeting_id: 'm1',
      title: 'Release',
      segments: segments.map((s, index) => ({ ...s, index, words: [] })),
      speakers: [],
    },
    summary: {
      meeting_id: 'm1',
      status: 'ready',
      result: { text: summary.text, sections: summary.sections, template_id: 'meeting_notes', model: 'extractive', source: 'generated' },
      regeneration_failed: false,
      error: null,
      updated_at: '2026-11-23T09:00:00.000Z',
    },
  };
}

describe('exports of a generated summary', () => {
  test('Markdown, raw: the summary once, sections as headings, items as plain list lines', () => {
    const md = renderMarkdown(exportData());
    const summary = md.slice(md.indexOf('## Summary'), md.indexOf('## Transcript'));
    for (const title of ['Overview', 'Decisions', 'Action items', 'Blockers and risks', 'Open questions'])
      assert.equal(summary.split(`\n### ${title}\n`).length, 2, `one "${title}" heading`);
    assert.doesNotMatch(summary, /Overview:|Decisions:/, 'the plain-text rendering (text) is not repeated');
    assert.doesNotMatch(summary, /\\$/m, 'no line ends with a backslash');
    assert.doesNotMatch(summary, /\\-/, 'no escaped dash');
    assert.match(
      summary,
      /^- \(00:30\) Ben: That still leaves time for a final review on Thursday\. \(agreed by Alice\) Date: 2026-11-26\.$/m,
    );
    assert.match(
      summary,
      /^- \(00:40\) Owner: Alice\. Task: update the roadmap and send the notes to the team - by Friday\. Due: 2026-11-27\.$/m,
    );
  });

  test('Markdown, rendered: headings and list items, the text once', async () => {
    const html = await marked.parse(renderMarkdown(exportData()));
    const summary = html.slice(html.indexOf('<h2>Summary</h2>'), html.indexOf('<h2>Transcript</h2>'));
    assert.deepEqual(
      [...summary.matchAll(/<h3>([^<]*)<\/h3>/g)].map((m) => m[1]),
      ['Overview', 'Decisions', 'Action items', 'Blockers and risks', 'Open questions'],
    );
    assert.match(
      summary,
      /<li>\(00:30\) Ben: That still leaves time for a final review on Thursday\. \(agreed by Alice\) Date: 2026-11-26\.<\/li>/,
    );
    assert.equal(summary.match(/final review on Thursday/g)?.length, 1);
    assert.doesNotMatch(summary, /<br>|\\/);
  });

  test('plain text: the summary once, a title line per section, items as "- " lines', () => {
    const txt = renderText(exportData());
    const summary = txt.slice(txt.indexOf('SUMMARY'), txt.indexOf('TRANSCRIPT'));
    assert.equal(summary.match(/final review on Thursday/g)?.length, 1);
    assert.match(summary, /\nDecisions\n\n- \(00:30\) Ben: That still leaves time/);
    assert.doesNotMatch(summary, /\\/);
  });
});
