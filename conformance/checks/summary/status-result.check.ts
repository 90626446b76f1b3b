import { importSilentMeeting } from '../../harness/api-fixtures.ts';
import { defineCheck } from '../../harness/check.ts';

export const check = defineCheck({
  id: 'summary/status-result',
  clauses: ['summary.status-result.gap'],
  level: 'gap',
  touches: 'own',
  needs: ['token', 'meeting'],
  description:
    'Records the summary status and the shape of result for a meeting with a summary, without ' +
    'one, and after an overwrite (without the Control API: an imported meeting, and an import ' +
    'of silence for the one without a summary).',
  requirement: 'The allowed values of the summary status and the shape of result are not shown and are implementation-defined.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const withSummary = await ctx.fixtures.meeting();
    const a = await api.get(`/v1/meetings/${withSummary.id}/summary`);
    ctx.observe('summary.status-result.gap', 'summary of a meeting that has one', a.describe(400), a);
    const without = ctx.has('meetings')
      ? await ctx.fixtures.meeting({ summary: null })
      : await importSilentMeeting(ctx, `Conformance silence ${ctx.fixtures.word()}`);
    if ('id' in without) {
      const b = await api.get(`/v1/meetings/${without.id}/summary`);
      ctx.observe(
        'summary.status-result.gap',
        ctx.has('meetings') ? 'summary of a meeting without one' : 'summary of a meeting made by importing silence',
        b.describe(400),
        b,
      );
    } else ctx.note(`no meeting without a summary could be made through the API: ${without.missing}`);
    await api.put(`/v1/meetings/${withSummary.id}/summary`, { json: { text: 'Overwritten by the conformance suite.' } });
    const c = await api.get(`/v1/meetings/${withSummary.id}/summary`);
    ctx.observe('summary.status-result.gap', 'summary after PUT …/summary', c.describe(400), c);
  },
});
