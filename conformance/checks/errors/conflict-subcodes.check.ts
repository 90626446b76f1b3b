import { defineCheck } from '../../harness/check.ts';
import type { Exchange } from '../../harness/exchange.ts';
import * as x from '../../harness/expect.ts';
import { CONFLICT_SUBCODES, RATE_SUBCODES } from '../../spec/constants.ts';

export const check = defineCheck({
  id: 'errors/conflict-subcodes',
  clauses: ['errors.code.conflict.409', 'errors.subcode.in-code-field', 'errors.subcode.known-set'],
  level: 'requirement',
  needs: [],
  order: 'last',
  description:
    'Provokes 409s (pause of an import job, retry of a succeeded job, with the Control API jobs ' +
    'capability; recording stop, pause and resume while idle) and checks that every 409 of the ' +
    'run carries one of the eight sub-codes in error.code, and every 429 import_budget_full. ' +
    'SKIPPED when no 409 or 429 was met.',
  requirement: "Status 409 signals a conflict with the resource's current state and carries a sub-code.",
  async run(ctx) {
    if (ctx.has('tokens') || ctx.env.userToken !== null) {
      const api = ctx.as(await ctx.token(['read', 'write', 'record']));
      if (ctx.has('jobs')) {
        const running = await ctx.control.createJob({ kind: 'import', state: 'running', hold: true });
        await api.post(`/v1/jobs/${running}/pause`, { label: 'provoke: pause an import job (409 import_not_pausable)' });
        const done = await ctx.control.createJob({ kind: 'diarization', state: 'succeeded' });
        await api.post(`/v1/jobs/${done}/retry`, { label: 'provoke: retry a succeeded job' });
        await api.post(`/v1/jobs/${running}/cancel`, { label: 'clean up the held job' });
      }
      const state = (await api.get('/v1/recording')).body as { state?: unknown } | undefined;
      if (state?.state === 'idle')
        for (const action of ['stop', 'pause', 'resume'])
          await api.post(`/v1/recording/${action}`, { label: `provoke: recording ${action} while idle` });
    }
    const seen: Exchange[] = [...ctx.runLog, ...ctx.attempt.exchanges].filter(
      (e) => e.channel === 'api' && e.response !== undefined && (e.response.status === 409 || e.response.status === 429),
    );
    if (seen.length === 0)
      return ctx.skip('no 409 or 429 answer was met in this run (the jobs, recording and webhook checks provoke them)');
    for (const e of seen) {
      const status = e.response!.status;
      let code: unknown;
      try {
        code = (JSON.parse(e.response!.body) as { error?: { code?: unknown } }).error?.code;
      } catch {
        code = undefined;
      }
      const allowed: readonly string[] = status === 409 ? CONFLICT_SUBCODES : RATE_SUBCODES;
      const ok = typeof code === 'string' && allowed.includes(code);
      const clauses =
        status === 409
          ? ['errors.code.conflict.409', 'errors.subcode.in-code-field', 'errors.subcode.known-set']
          : ['errors.subcode.in-code-field', 'errors.subcode.known-set'];
      ctx.expect(
        clauses,
        `${e.request.method} ${new URL(e.request.url).pathname} → ${status}`,
        x.that(ok, `error.code one of ${allowed.join(', ')}`, `error.code ${x.show(code)}`),
        e,
      );
    }
  },
});
