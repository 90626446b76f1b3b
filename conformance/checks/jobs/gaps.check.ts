import { defineCheck } from '../../harness/check.ts';
import { failedImport, runningImport } from '../../harness/api-fixtures.ts';
import type { CheckContext } from '../../harness/context.ts';
import type { BoundClient } from '../../harness/context-types.ts';
import { getJob, importSpeech, pollJob } from '../../harness/jobs.ts';

export const check = defineCheck({
  id: 'jobs/gaps',
  clauses: ['jobs.control.response.gap', 'jobs.queued-running.gap', 'jobs.retry.next-state.gap'],
  level: 'gap',
  touches: 'own',
  needs: ['token'],
  description:
    'Records the bodies of cancel, pause, resume and retry, the state of a queued job over a ' +
    'second, and the state reached after a retry (held jobs through the Control API; without ' +
    'it, real imports: a long one running, one of undecodable bytes failed, a fresh one from ' +
    'its start).',
  requirement: 'The response bodies of job cancel, pause, resume and retry are not shown and are implementation-defined.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    if (!(ctx.has('jobs') && ctx.has('meetings'))) return realJobs(ctx, api);
    const m = await ctx.fixtures.meeting({ audio: true });
    const id = await ctx.control.createJob({ kind: 'diarization', meeting_id: m.id, state: 'running', hold: true });
    for (const action of ['pause', 'resume', 'cancel']) {
      const res = await api.post(`/v1/jobs/${id}/${action}`);
      ctx.observe('jobs.control.response.gap', `POST /v1/jobs/{id}/${action}`, res.describe(300), res);
      await pollJob(api, id, (j) => j.state === 'paused' || j.state === 'running' || j.state === 'cancelled', 2000, 100);
    }
    const failed = await ctx.control.createJob({
      kind: 'retranscription',
      meeting_id: m.id,
      state: 'failed',
      is_retryable: true,
      error: 'boom',
    });
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

/** The same observations on real imports, for a target without the Control API's held jobs. */
async function realJobs(ctx: CheckContext, api: BoundClient): Promise<void> {
  const fresh = await importSpeech(ctx, api, { filename: 'conformance-states.wav', title: 'Conformance job states', language: 'en' });
  if (fresh.jobId !== null) {
    const q: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { job } = await getJob(api, fresh.jobId);
      q.push(String(job.state));
      await ctx.sleep(200);
    }
    ctx.observe('jobs.queued-running.gap', 'a fresh import over 1 s', q.join(' → '));
  } else ctx.observe('jobs.queued-running.gap', 'a fresh import', `no job: ${fresh.res.describe(200)}`, fresh.res);
  const failed = await failedImport(api);
  if ('id' in failed) {
    const retry = await api.post(`/v1/jobs/${failed.id}/retry`);
    ctx.observe('jobs.control.response.gap', 'POST /v1/jobs/{id}/retry (a failed import)', retry.describe(300), retry);
    const states: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { job } = await getJob(api, failed.id);
      states.push(String(job.state));
      await ctx.sleep(100);
    }
    ctx.observe('jobs.retry.next-state.gap', 'states of a retried failed import over 0.5 s', states.join(' → '));
  } else ctx.observe('jobs.retry.next-state.gap', 'a failed job to retry', failed.missing);
  const id = await runningImport(ctx, api);
  for (const action of ['pause', 'resume', 'cancel']) {
    const res = await api.post(`/v1/jobs/${id}/${action}`);
    ctx.observe('jobs.control.response.gap', `POST /v1/jobs/{id}/${action} (a running import)`, res.describe(300), res);
    await pollJob(api, id, (j) => j.state === 'paused' || j.state === 'running' || j.state === 'cancelled', 2000, 100);
  }
}
