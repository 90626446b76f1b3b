import { pauseRealDiarization, sharedLongMeeting } from '../../harness/api-fixtures.ts';
import type { CheckContext } from '../../harness/context.ts';
import type { BoundClient } from '../../harness/context-types.ts';
import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { getJob, isTerminal, pollJob } from '../../harness/jobs.ts';
import { skipWhenStillPending } from '../../harness/polling.ts';
import { openSse } from '../../harness/sse.ts';
import { describeStream, skipWhenJobWaitOutlasted, terminalStateOf } from '../../harness/waits.ts';

/**
 * Without the Control API's 'jobs': a real diarization of a long imported meeting, paused while it
 * runs (harness/api-fixtures.ts pauseRealDiarization). The wait opens once it is paused; the job
 * then ends on its own after the resume (or is cancelled), and the one event must name that end.
 */
async function realJob(ctx: CheckContext, api: BoundClient): Promise<void> {
  const meetingId = await sharedLongMeeting(ctx, api);
  const { id, pause } = await pauseRealDiarization(ctx, api, meetingId);
  ctx.expect('jobs.pause.non-import', 'POST /v1/jobs/{id}/pause on a running diarization', x.success(pause), pause);
  if (!pause.ok) return;
  const settled = await pollJob(api, id, (j) => j.state === 'paused' || isTerminal(j), 5000, 50);
  if (isTerminal(settled.job))
    return ctx.skip(`the diarization ended (${String(settled.job.state)}) while its accepted pause settled: no paused job to observe`);
  if (settled.job.state === 'pausing') await api.post(`/v1/jobs/${id}/cancel`, { label: 'clean up' });
  // Still pausing when the 5 s ran out: slow, not wrong (decision 081).
  skipWhenStillPending(ctx, 'the paused diarization', { ...settled, want: ['paused'], pending: ['pausing'] });
  ctx.expect(
    'jobs.pause.non-import',
    'GET /v1/jobs/{id} after the accepted pause',
    x.that(settled.job.state === 'paused', 'pausing, then paused', `state ${x.show(settled.job.state)} after 5 s`),
    settled.res,
  );
  if (settled.job.state !== 'paused') {
    await api.post(`/v1/jobs/${id}/cancel`, { label: 'clean up' });
    return;
  }
  const stream = openSse(ctx.api, `/v1/jobs/${id}/wait`, {
    token: api.token,
    query: { timeout: 30 },
    deadlineMs: 20_000,
    closeGraceMs: 3000,
  });
  await ctx.sleep(400);
  const whilePaused = [...stream.events];
  const resume = await api.post(`/v1/jobs/${id}/resume`);
  const { res: afterRes, job: after } = await getJob(api, id);
  ctx.expect(
    'jobs.resume.paused',
    'POST /v1/jobs/{id}/resume on the paused diarization, then GET /v1/jobs/{id}',
    x.that(
      resume.ok && after.state !== 'paused' && after.state !== 'pausing',
      'accepted; the job leaves paused (resuming, running, or already ended)',
      `${resume.describe(120)}; state ${x.show(after.state)}`,
    ),
    afterRes,
  );
  // The job ends on its own after the resume; one that is still going after 10 s is cancelled.
  const ended = await pollJob(api, id, isTerminal, 10_000, 100);
  if (!ended.reached) await api.post(`/v1/jobs/${id}/cancel`);
  const s = await stream.done;
  const { res, job } = await getJob(api, id);
  ctx.expect(
    'sse.job.pause-resume-no-resolve',
    'events on the job wait while the job was paused',
    x.that(whilePaused.length === 0, 'none (the wait stays open)', describeStream(s)),
    s.exchange,
  );
  skipWhenJobWaitOutlasted(ctx, 'the job wait after the resume (20 s)', s, job);
  const e = s.events[0];
  const named = e === undefined ? null : terminalStateOf(e);
  ctx.expect(
    'sse.job.pause-resume-no-resolve',
    'the events after the resume',
    x.that(
      s.events.length === 1 && named !== null && named === job.state,
      `one event naming the end the job reached (${String(job.state)})`,
      describeStream(s),
    ),
    res,
  );
}

export const check = defineCheck({
  id: 'sse/pause-resume-no-resolve',
  clauses: ['sse.job.pause-resume-no-resolve', 'jobs.pause.non-import', 'jobs.resume.paused'],
  level: 'requirement',
  touches: 'own',
  needs: ['token'],
  // Without the Control API's jobs: the import of a long meeting (shared by the run), then real diarizations, on a target that may be busy.
  timeoutMs: 300_000,
  description:
    'With a job wait open on a held running diarization job (Control API), pauses it, waits for ' +
    'paused, resumes it: the stream stays open with no event; then a cancel resolves it with ' +
    'one event naming cancelled. Without the Control API’s jobs: a real diarization of a long ' +
    'imported meeting, paused while it runs (SKIPPED when every one ends first), observed with ' +
    'the wait open while paused, then resumed: the one event names the end it reaches.',
  requirement: 'Pausing or resuming a job (job.paused, job.resumed) never resolves an open job wait.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    if (!ctx.has('jobs')) return realJob(ctx, api);
    const m = await ctx.fixtures.meeting();
    const id = await ctx.control.createJob({ kind: 'diarization', meeting_id: m.id, state: 'running', hold: true });
    const stream = openSse(ctx.api, `/v1/jobs/${id}/wait`, {
      token: api.token,
      query: { timeout: 30 },
      deadlineMs: 20_000,
      closeGraceMs: 3000,
    });
    await ctx.sleep(200);
    const p = await api.post(`/v1/jobs/${id}/pause`);
    if (!p.ok) {
      stream.close();
      await stream.done;
      return ctx.skip(`the pause was refused (${p.status}); jobs/lifecycle-model reports it`);
    }
    const paused = await pollJob(api, id, (j) => j.state === 'paused', 3000, 100);
    if (paused.job.state === 'pausing') {
      await api.post(`/v1/jobs/${id}/cancel`, { label: 'clean up' });
      stream.close();
      await stream.done;
    }
    // Still pausing when the 3 s ran out: slow, not wrong (decision 081).
    skipWhenStillPending(ctx, 'the held diarization', { ...paused, want: ['paused'], pending: ['pausing'] });
    ctx.expect(
      'jobs.pause.non-import',
      'GET /v1/jobs/{id} after pausing the held running diarization',
      x.that(paused.reached, 'pausing, then paused', `state ${x.show(paused.job.state)}`),
      paused.res,
    );
    await ctx.sleep(400);
    const resume = await api.post(`/v1/jobs/${id}/resume`);
    const { res: afterRes, job: after } = await getJob(api, id);
    ctx.expect(
      'jobs.resume.paused',
      'POST /v1/jobs/{id}/resume on the paused held diarization, then GET /v1/jobs/{id}',
      x.that(
        resume.ok && after.state !== 'paused' && after.state !== 'pausing',
        'accepted; the job leaves paused',
        `${resume.describe(120)}; state ${x.show(after.state)}`,
      ),
      afterRes,
    );
    await ctx.sleep(800);
    const during = [...stream.events];
    await api.post(`/v1/jobs/${id}/cancel`);
    const s = await stream.done;
    ctx.expect(
      'sse.job.pause-resume-no-resolve',
      'events on the job wait across pause and resume',
      x.that(during.length === 0, 'none (the wait stays open)', describeStream(s)),
      s.exchange,
    );
    skipWhenJobWaitOutlasted(ctx, 'the job wait after the cancel (20 s)', s, (await getJob(api, id)).job);
    const e = s.events[0];
    ctx.expect(
      'sse.job.pause-resume-no-resolve',
      'the event after the cancel',
      x.that(
        s.events.length === 1 && e !== undefined && terminalStateOf(e) === 'cancelled',
        'one event naming cancelled',
        describeStream(s),
      ),
      s.exchange,
    );
  },
});
