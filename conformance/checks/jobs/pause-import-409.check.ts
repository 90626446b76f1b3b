import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { getJob, pollJob } from '../../harness/jobs.ts';

export const check = defineCheck({
  id: 'jobs/pause-import-409',
  clauses: ['jobs.pause.import.409-import_not_pausable', 'jobs.cancel.import'],
  level: 'requirement',
  touches: 'own',
  needs: ['jobs', 'token'],
  description: 'A held running import job (Control API): pause → 409 import_not_pausable and the state stays running; cancel → cancelled.',
  requirement: 'Pausing an import job is refused with 409 import_not_pausable and leaves its state unchanged.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const id = await ctx.control.createJob({ kind: 'import', state: 'running', hold: true });
    const res = await api.post(`/v1/jobs/${id}/pause`);
    ctx.expect('jobs.pause.import.409-import_not_pausable', 'POST /v1/jobs/{id}/pause on a running import', x.error(res, 409, 'import_not_pausable'), res);
    const { res: got, job } = await getJob(api, id);
    ctx.expect('jobs.pause.import.409-import_not_pausable', 'GET /v1/jobs/{id} after the refused pause', x.that(job.state === 'running', 'state running (unchanged)', `state ${x.show(job.state)}`), got);
    const cancel = await api.post(`/v1/jobs/${id}/cancel`);
    ctx.expect('jobs.cancel.import', 'POST /v1/jobs/{id}/cancel on a running import', x.success(cancel), cancel);
    const { res: after, job: done } = await pollJob(api, id, (j) => j.state === 'cancelled', 5000, 100);
    ctx.expect('jobs.cancel.import', 'GET /v1/jobs/{id} after the cancel', x.that(done.state === 'cancelled', 'state cancelled', `state ${x.show(done.state)}`), after);
  },
});
