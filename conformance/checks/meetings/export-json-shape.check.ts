import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'meetings/export-json-shape',
  clauses: ['meetings.export.json.shape'],
  level: 'requirement',
  touches: 'own',
  needs: ['token', 'meetings'],
  description: 'The JSON export holds meeting (this meeting) and transcript, plus summary for a meeting that has one; for a meeting without a summary, summary is absent or null.',
  requirement:
    'The JSON export has meeting and transcript, plus summary when one exists.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    const withSummary = await ctx.fixtures.meeting();
    const without = await ctx.fixtures.meeting({ summary: null });
    const a = await api.get(`/v1/meetings/${withSummary.id}/export`, { query: { format: 'json' } });
    ctx.require('meetings.export.json.shape', 'GET …/export?format=json (with a summary)', x.all(x.status(a, 200), x.json(a)), a);
    ctx.expect('meetings.export.json.shape', 'export of a meeting with a summary', x.fields(a.body, { meeting: 'object', transcript: 'any', summary: 'any' }, 'ExportDto'), a);
    const body = a.body as { meeting?: { id?: unknown }; summary?: unknown };
    ctx.expect('meetings.export.json.shape', 'export.meeting.id', x.equal(body.meeting?.id, withSummary.id, 'meeting.id'), a);
    ctx.expect('meetings.export.json.shape', 'export.summary holds the summary', x.that(x.containsString(body.summary, withSummary.seed.summary!.text), 'the seeded summary text inside summary', x.show(body.summary, 200)), a);
    const b = await api.get(`/v1/meetings/${without.id}/export`, { query: { format: 'json' } });
    ctx.expect('meetings.export.json.shape', 'export of a meeting without a summary', x.all(x.status(b, 200), x.fields(b.body, { meeting: 'object', transcript: 'any' }, 'ExportDto')), b);
    const s = (b.body as { summary?: unknown } | undefined)?.summary;
    if (s !== undefined && s !== null) ctx.note(`a meeting without a summary exports summary = ${x.show(s, 120)}`);
  },
});
