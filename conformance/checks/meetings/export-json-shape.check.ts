import { defineCheck } from '../../harness/check.ts';
import type { CheckContext } from '../../harness/context.ts';
import type { BoundClient } from '../../harness/context-types.ts';
import { importSilentMeeting, summaryTextOf } from '../../harness/api-fixtures.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'meetings/export-json-shape',
  clauses: ['meetings.export.json.shape'],
  level: 'requirement',
  touches: 'own',
  needs: ['token', 'meeting'],
  description:
    'The JSON export holds meeting (this meeting) and transcript, plus summary for a meeting ' +
    'that has one; for a meeting without a summary, summary is absent or null. Without the ' +
    'Control API the meeting is an import (its summary text is read from GET …/summary), and ' +
    'the one without a summary an import of silence whose summary is empty; when the target ' +
    'summarizes silence, that half is not checked (noted).',
  requirement: 'The JSON export has meeting and transcript, plus summary when one exists.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    const seeded = ctx.has('meetings');
    const withSummary = seeded ? await ctx.fixtures.meeting() : await ctx.fixtures.meetingToRead();
    let summaryText = withSummary.seed.summary?.text ?? null;
    if (!seeded) {
      const s = await api.get(`/v1/meetings/${withSummary.id}/summary`, {
        label: 'the summary of the imported meeting, to find in the export',
      });
      summaryText = summaryTextOf((s.body as { result?: unknown } | undefined)?.result);
      ctx.premise(
        'the imported meeting has a summary (generated after the import)',
        { ok: summaryText !== null, expected: ['a summary text'], actual: s.describe(160) },
        s,
      );
    }
    const a = await api.get(`/v1/meetings/${withSummary.id}/export`, { query: { format: 'json' } });
    ctx.require('meetings.export.json.shape', 'GET …/export?format=json (with a summary)', x.all(x.status(a, 200), x.json(a)), a);
    ctx.expect(
      'meetings.export.json.shape',
      'export of a meeting with a summary',
      x.fields(a.body, { meeting: 'object', transcript: 'any', summary: 'any' }, 'ExportDto'),
      a,
    );
    const body = a.body as { meeting?: { id?: unknown }; summary?: unknown };
    ctx.expect('meetings.export.json.shape', 'export.meeting.id', x.equal(body.meeting?.id, withSummary.id, 'meeting.id'), a);
    ctx.expect(
      'meetings.export.json.shape',
      'export.summary holds the summary',
      x.that(x.containsString(body.summary, summaryText!), 'the seeded summary text inside summary', x.show(body.summary, 200)),
      a,
    );
    const without = seeded ? await ctx.fixtures.meeting({ summary: null }) : await silentWithoutSummary(ctx, api);
    if (without === null) return;
    const b = await api.get(`/v1/meetings/${without.id}/export`, { query: { format: 'json' } });
    ctx.expect(
      'meetings.export.json.shape',
      'export of a meeting without a summary',
      x.all(x.status(b, 200), x.fields(b.body, { meeting: 'object', transcript: 'any' }, 'ExportDto')),
      b,
    );
    const s = (b.body as { summary?: unknown } | undefined)?.summary;
    if (s !== undefined && s !== null) ctx.note(`a meeting without a summary exports summary = ${x.show(s, 120)}`);
  },
});

/** A meeting without a summary made through the API: an import of silence, if the target leaves its summary empty; null (noted) otherwise. */
async function silentWithoutSummary(ctx: CheckContext, api: BoundClient): Promise<{ id: string } | null> {
  const made = await importSilentMeeting(ctx, `Conformance silence ${ctx.fixtures.word()}`);
  if ('missing' in made) {
    ctx.note(`no meeting without a summary could be made through the API (${made.missing}); the export without a summary is not checked`);
    return null;
  }
  const s = await api.get(`/v1/meetings/${made.id}/summary`, { label: 'the summary of imported silence (expected none)' });
  if (summaryTextOf((s.body as { result?: unknown } | undefined)?.result) !== null) {
    ctx.note(`the target summarized imported silence (${s.describe(120)}); the export without a summary is not checked`);
    return null;
  }
  return made;
}
