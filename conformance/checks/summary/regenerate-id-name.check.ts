import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'summary/regenerate-id-name',
  clauses: ['summary.regenerate.id-name'],
  level: 'conflict',
  touches: 'own',
  needs: ['meeting', 'token'],
  description: 'The regenerate answer names the id operation_id (the spec) or process_id (the other reference).',
  requirement:
    'The regenerate response names the operation id operation_id, which the spec chooses over one reference that calls it process_id.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const m = await ctx.fixtures.meeting();
    const res = await api.post(`/v1/meetings/${m.id}/summary/regenerate`, { json: {} });
    const b = (res.body ?? {}) as { operation_id?: unknown; process_id?: unknown };
    const matched = typeof b.operation_id === 'string' ? 0 : typeof b.process_id === 'string' ? 1 : null;
    ctx.conflict(
      'summary.regenerate.id-name',
      'POST …/summary/regenerate {}',
      matched,
      `${res.status} keys ${Object.keys(b).join(', ')}`,
      res,
    );
    if (res.status === 0) ctx.expect('summary.regenerate.id-name', 'an answer', x.success(res), res);
  },
});
