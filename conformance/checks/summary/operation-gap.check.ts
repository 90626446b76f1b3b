import { defineCheck } from '../../harness/check.ts';

export const check = defineCheck({
  id: 'summary/operation-gap',
  clauses: ['summary.operation.status.gap'],
  level: 'gap',
  touches: 'own',
  needs: ['meeting', 'token'],
  description: 'Records the operation status bodies from the regenerate answer until it settles (states and fields).',
  requirement:
    'The states of a regeneration operation and the body of the operation status poll are not shown and are implementation-defined.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const m = await ctx.fixtures.meeting();
    const res = await api.post(`/v1/meetings/${m.id}/summary/regenerate`, { json: {} });
    ctx.observe('summary.operation.status.gap', 'POST …/summary/regenerate {}', res.describe(400), res);
    const id =
      (res.body as { operation_id?: unknown; process_id?: unknown } | undefined)?.operation_id ??
      (res.body as { process_id?: unknown } | undefined)?.process_id;
    if (typeof id !== 'string') return;
    const states: string[] = [];
    for (let i = 0; i < 10; i++) {
      const st = await api.get(`/v1/meetings/${m.id}/summary/operations/${id}`);
      const s = JSON.stringify((st.body as { state?: unknown } | undefined)?.state);
      if (states.at(-1) !== s) {
        states.push(s);
        ctx.observe('summary.operation.status.gap', `status poll ${i + 1}`, st.describe(400), st);
      }
      await ctx.sleep(150);
    }
    ctx.observe('summary.operation.status.gap', 'states seen', states.join(' → '));
  },
});
