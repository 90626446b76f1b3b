import { defineCheck } from '../../harness/check.ts';
import { getJob, pollJob } from '../../harness/jobs.ts';

export const check = defineCheck({
  id: 'jobs/gaps',
  clauses: ['jobs.control.response.gap', 'jobs.queued-running.gap', 'jobs.retry.next-state.gap'],
  level: 'gap',
  touches: 'own',
  needs: ['jobs', 'meetings', 'token'],
  description: 'Records the bodies of cancel, pause, resume and retry, the state of a queued job over a second, and the state reached after a retry.',
  requirement: 'The response bodies of job cancel, pause, resume and retry are not shown and are implementation-defined.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const m = await ctx.fixtures.meeting({ audio: true });
    const id = await ctx.control.createJob({ kind: 'diarization', meeting_id: m.id, state: 'running', hold: true });
    for (const action of ['pause', 'resume', 'cancel']) {
      const res = await api.post(`/v1/jobs/${id}/${action}`);
      ctx.observe('jobs.control.response.gap', `POST /v1/jobs/{id}/${action}`, res.describe(300), res);
      await pollJob(api, id, (j) => j.state === 'paused' || j.state === 'running' || j.state === 'cancelled', 2000, 100);
    }
    const failed = await ctx.control.createJob({ kind: 'retranscription', meeting_id: m.id, state: 'failed', is_retryable: true, error: 'boom' });
    const retry = await api.post(`/v1/jobs/${failed}/retry`);
    ctx.observe('jobs.control.response.gap', 'POST /v1/jobs/{id}/retry', retry.describe(300), retry);
    const states: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { job } = await getJob(api, failed);
      states.push(String(job.state));
      await ctx.sleep(100);
    }
    ctx.observe('jobs.retry.next-state.gap', 'states of a retried job over 0.5 s', states.join(' → '));
    const queued = await ctx.control.createJob({ kind: 'diarization', meeting_id: m.id, state: 'queued', hold: true });
    const q: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { job } = await getJob(api, queued);
      q.push(String(job.state));
      await ctx.sleep(200);
    }
    ctx.observe('jobs.queued-running.gap', 'a held queued job over 1 s', q.join(' → '));
    await api.post(`/v1/jobs/${queued}/cancel`, { label: 'clean up' });
  },
});
