import { IMPORT_MEETING_TIMEOUT_MS, runningImport } from '../../harness/api-fixtures.ts';
import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { getJob, importSpeech, isTerminal, pollJob } from '../../harness/jobs.ts';
import { skipWhenStillPending } from '../../harness/polling.ts';

/**
 * Job states as real jobs reach them, through the API alone: what a run
 * without the Control API's held jobs can check (jobs/lifecycle-model and
 * jobs/retry drive held jobs through every state).
 */
export const check = defineCheck({
  id: 'jobs/real-job-states',
  clauses: ['jobs.state.terminal', 'jobs.cancel.running', 'jobs.retry.requires-retryable', 'jobs.retranscription.no-submit-route'],
  level: 'requirement',
  touches: 'own',
  needs: ['token'],
  description:
    'An import of the shipped speech, once finished, keeps its terminal state over a second and ' +
    'its retry is refused with the state unchanged; a running import (a long recording, seen ' +
    'running) cancelled moves, possibly via cancelling, to cancelled, stays there, and its ' +
    'retry is refused; POST /v1/jobs/retranscription (and look-alikes) does not exist. A job ' +
    'that ends on its own before the cancel makes the check SKIPPED.',
  requirement: 'succeeded, failed and cancelled are terminal states that a job does not leave on its own.',
  timeoutMs: 180_000,
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const { res: imported, jobId } = await importSpeech(ctx, api, {
      filename: 'conformance-states.wav',
      title: 'Conformance job states',
      language: 'en',
    });
    ctx.premise(
      'an import job of the shipped speech (jobs/import-speech grades the import)',
      x.that(jobId !== null, '{"job_id"}', imported.describe(150)),
      imported,
    );
    const { res: ended, job: done, reached } = await pollJob(api, jobId!, isTerminal, IMPORT_MEETING_TIMEOUT_MS, 250);
    ctx.premise(
      'the import ended (jobs/import-speech grades how)',
      x.that(reached, 'a terminal state', `state ${String(done.state)}`),
      ended,
    );
    const final = String(done.state);
    const stays = async (id: string, state: string, what: string): Promise<void> => {
      const seen: string[] = [];
      for (let i = 0; i < 5; i++) {
        seen.push(String((await getJob(api, id)).job.state));
        await ctx.sleep(200);
      }
      ctx.expect(
        'jobs.state.terminal',
        `${what}: its state over a second`,
        x.that(
          seen.every((s) => s === state),
          `${state} throughout`,
          seen.join(' → '),
        ),
      );
    };
    await stays(jobId!, final, `an import that ended ${final}`);
    const retryDone = await api.post(`/v1/jobs/${jobId!}/retry`);
    if (final === 'failed')
      ctx.note(`the import ended failed; its retry answered ${retryDone.describe(120)} (whether it was retryable is the target's)`);
    else {
      ctx.expect(
        'jobs.retry.requires-retryable',
        `POST /v1/jobs/{id}/retry on an import that ended ${final}`,
        x.refused(retryDone, 409),
        retryDone,
      );
      const { res: after, job } = await getJob(api, jobId!);
      ctx.expect(
        'jobs.retry.requires-retryable',
        'GET /v1/jobs/{id} after the refused retry',
        x.that(job.state === final, `state ${final} (unchanged)`, `state ${x.show(job.state)}`),
        after,
      );
    }
    const meetingId = typeof done.meeting_id === 'string' ? done.meeting_id : 'no-such-meeting';
    for (const p of ['/v1/jobs/retranscription', '/v1/jobs/transcription', '/v1/jobs/retranscribe']) {
      const r = await api.post(p, { json: { meeting_id: meetingId } });
      ctx.expect(
        'jobs.retranscription.no-submit-route',
        `POST ${p}`,
        x.that(r.status === 404 || r.status === 405, '404 or 405 (no such route)', r.describe(150)),
        r,
      );
    }
    const running = await runningImport(ctx, api);
    const cancel = await api.post(`/v1/jobs/${running}/cancel`);
    if (!cancel.ok) {
      // A real import may finish between the poll that saw it running and the cancel.
      const { res: now, job } = await getJob(api, running);
      ctx.premise(
        'the import still running when cancelled',
        x.that(!isTerminal(job) || job.state === 'cancelled', 'a job not yet finished', `state ${String(job.state)}`),
        now,
      );
    }
    ctx.expect('jobs.cancel.running', 'POST /v1/jobs/{id}/cancel on a running import', x.success(cancel), cancel);
    const cancelPoll = await pollJob(api, running, (j) => j.state !== 'running' && j.state !== 'cancelling', 10_000, 100);
    const { res: got, job: cancelled } = cancelPoll;
    // Still cancelling (the transient state) when the 10 s ran out: a slow target, not a violation (decision 081).
    skipWhenStillPending(ctx, 'the cancelled import', { ...cancelPoll, want: ['cancelled'], pending: ['cancelling'] });
    ctx.expect(
      'jobs.cancel.running',
      'GET /v1/jobs/{id} after the cancel',
      x.that(cancelled.state === 'cancelled', 'state cancelled (possibly via cancelling)', `state ${x.show(cancelled.state)}`),
      got,
    );
    if (cancelled.state !== 'cancelled') return;
    await stays(running, 'cancelled', 'a cancelled import');
    const retryCancelled = await api.post(`/v1/jobs/${running}/retry`);
    ctx.expect(
      'jobs.retry.requires-retryable',
      'POST /v1/jobs/{id}/retry on a cancelled import',
      x.refused(retryCancelled, 409),
      retryCancelled,
    );
    const { res: after, job } = await getJob(api, running);
    ctx.expect(
      'jobs.retry.requires-retryable',
      'GET /v1/jobs/{id} after the refused retry (cancelled)',
      x.that(job.state === 'cancelled', 'state cancelled (unchanged)', `state ${x.show(job.state)}`),
      after,
    );
  },
});
