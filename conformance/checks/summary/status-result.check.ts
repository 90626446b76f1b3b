import { defineCheck } from '../../harness/check.ts';

export const check = defineCheck({
  id: 'summary/status-result',
  clauses: ['summary.status-result.gap'],
  level: 'gap',
  touches: 'own',
  needs: ['tokens', 'meetings'],
  description: 'Records the summary status and the shape of result for a meeting with a summary, without one, and after an overwrite.',
  requirement:
    'The allowed values of the summary status and the shape of result are not shown and are implementation-defined.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const withSummary = await ctx.fixtures.meeting();
    const without = await ctx.fixtures.meeting({ summary: null });
    const a = await api.get(`/v1/meetings/${withSummary.id}/summary`);
    ctx.observe('summary.status-result.gap', 'summary of a meeting that has one', a.describe(400), a);
    const b = await api.get(`/v1/meetings/${without.id}/summary`);
    ctx.observe('summary.status-result.gap', 'summary of a meeting without one', b.describe(400), b);
    await api.put(`/v1/meetings/${withSummary.id}/summary`, { json: { text: 'Overwritten by the conformance suite.' } });
    const c = await api.get(`/v1/meetings/${withSummary.id}/summary`);
    ctx.observe('summary.status-result.gap', 'summary after PUT …/summary', c.describe(400), c);
  },
});
