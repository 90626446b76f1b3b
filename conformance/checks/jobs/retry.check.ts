import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { getJob, pollJob } from '../../harness/jobs.ts';
import { skipWhenStillPending } from '../../harness/polling.ts';

export const check = defineCheck({
  id: 'jobs/retry',
  clauses: [
    'jobs.retry.failed-retryable',
    'jobs.retry.source-gone.409',
    'jobs.retry.requires-retryable',
    'jobs.retranscription.no-submit-route',
  ],
  level: 'requirement',
  touches: 'own',
  needs: ['jobs', 'meetings', 'token'],
  description:
    'A failed retryable retranscription (Control API) is retried with 2xx and leaves failed; a ' +
    'failed non-retryable one and a succeeded one are refused and unchanged; a failed import ' +
    'whose bytes are gone gets 409 source_gone; POST /v1/jobs/retranscription does not exist.',
  requirement: 'POST /v1/jobs/{id}/retry on a failed job whose is_retryable is true is accepted and runs the job again.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const meeting = await ctx.fixtures.meeting({ audio: true });
    const id = await ctx.control.createJob({
      kind: 'retranscription',
      meeting_id: meeting.id,
      state: 'failed',
      is_retryable: true,
      error: 'transcriber crashed',
    });
    const res = await api.post(`/v1/jobs/${id}/retry`);
    ctx.expect('jobs.retry.failed-retryable', 'POST /v1/jobs/{id}/retry on a failed retryable job', x.success(res), res);
    const ranAgain = (j: { state?: unknown; error?: unknown }): boolean => j.state !== 'failed' || j.error !== 'transcriber crashed';
    const retryPoll = await pollJob(api, id, ranAgain, 2000, 50);
    const { res: got, job } = retryPoll;
    // Still failed with the old error when the 2 s ran out: the retry may not have been picked up yet on a slow
    // target (the spec states no time, nor the next state). Not FAILed: the refusals below are still graded,
    // then the check is SKIPPED with the budget (decision 081).
    const slow = !retryPoll.reached && retryPoll.res.status === 200 && res.ok && job.state === 'failed';
    if (!slow)
      ctx.expect(
        'jobs.retry.failed-retryable',
        'GET /v1/jobs/{id} after the retry',
        x.that(
          ranAgain(job),
          'the job runs again (leaves failed, or failed anew with another error)',
          `state ${x.show(job.state)}, error ${x.show(job.error)}`,
        ),
        got,
      );
    for (const [label, spec] of [
      [
        'a failed job with is_retryable false',
        { kind: 'retranscription', meeting_id: meeting.id, state: 'failed', is_retryable: false, error: 'bad input' },
      ],
      ['a succeeded job', { kind: 'diarization', meeting_id: meeting.id, state: 'succeeded' }],
      ['a cancelled job', { kind: 'diarization', meeting_id: meeting.id, state: 'cancelled' }],
    ] as const) {
      const jid = await ctx.control.createJob({ ...spec });
      const r = await api.post(`/v1/jobs/${jid}/retry`);
      ctx.expect('jobs.retry.requires-retryable', `POST /v1/jobs/{id}/retry on ${label}`, x.refused(r, 409), r);
      const { res: after, job: j } = await getJob(api, jid);
      ctx.expect(
        'jobs.retry.requires-retryable',
        `GET /v1/jobs/{id} after the refused retry (${label})`,
        x.that(j.state === spec.state, `state ${spec.state} (unchanged)`, `state ${x.show(j.state)}`),
        after,
      );
    }
    const gone = await ctx.control.createJob({
      kind: 'import',
      state: 'failed',
      is_retryable: true,
      source_gone: true,
      error: 'decoder failed',
    });
    const g = await api.post(`/v1/jobs/${gone}/retry`);
    ctx.expect(
      'jobs.retry.source-gone.409',
      'POST /v1/jobs/{id}/retry on a failed import whose bytes are gone',
      x.error(g, 409, 'source_gone'),
      g,
    );
    for (const p of ['/v1/jobs/retranscription', '/v1/jobs/transcription', '/v1/jobs/retranscribe']) {
      const r = await api.post(p, { json: { meeting_id: meeting.id } });
      ctx.expect(
        'jobs.retranscription.no-submit-route',
        `POST ${p}`,
        x.that(r.status === 404 || r.status === 405, '404 or 405 (no such route)', r.describe(150)),
        r,
      );
    }
    if (slow) skipWhenStillPending(ctx, 'the retried job', { ...retryPoll, want: ['running again'], pending: ['failed'] });
  },
});
