import fc from 'fast-check';
import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { sharedLongMeeting } from '../../harness/api-fixtures.ts';
import type { CheckContext } from '../../harness/context.ts';
import type { BoundClient } from '../../harness/context-types.ts';
import { getJob, isTerminal, jobIdOf, pollJob } from '../../harness/jobs.ts';
import { openSse } from '../../harness/sse.ts';
import { describeStream, skipWhenJobWaitOutlasted, terminalStateOf } from '../../harness/waits.ts';

type Step = 'pause' | 'resume';
type End = 'cancel' | 'finish:succeeded' | 'finish:failed';

/**
 * Without the Control API's 'jobs': real diarizations of a long imported meeting, each seen running,
 * then a burst of pause/resume and a cancel. A real job may end on its own during the burst; the
 * one event must still name the end it reached. SKIPPED when no diarization is ever seen running.
 */
async function realJobs(ctx: CheckContext, api: BoundClient): Promise<void> {
  const meetingId = await sharedLongMeeting(ctx, api);
  let seenRunning = 0;
  await ctx.property(
    'real diarization: burst then cancel',
    fc.array(fc.constantFrom<Step>('pause', 'resume'), { minLength: 1, maxLength: 6 }),
    async (burst) => {
      const sub = await api.post('/v1/jobs/diarization', { json: { meeting_id: meetingId }, label: 'a real diarization for the burst' });
      const id = jobIdOf(sub);
      if (id === null) return;
      const stream = openSse(ctx.api, `/v1/jobs/${id}/wait`, {
        token: api.token,
        query: { timeout: 20 },
        deadlineMs: 15_000,
        closeGraceMs: 1500,
      });
      const { job: before } = await pollJob(api, id, (j) => j.state === 'running' || isTerminal(j), 10_000, 10);
      if (before.state === 'running') seenRunning++;
      await Promise.all(burst.map((s) => api.post(`/v1/jobs/${id}/${s}`)));
      await api.post(`/v1/jobs/${id}/cancel`);
      const ended = await pollJob(api, id, isTerminal, 10_000, 100);
      if (!ended.reached) await api.post(`/v1/jobs/${id}/cancel`);
      const s = await stream.done;
      const { res, job } = await getJob(api, id);
      skipWhenJobWaitOutlasted(ctx, 'the job wait after the burst and the cancel (15 s)', s, job);
      const e = s.events[0];
      const named = e === undefined ? null : terminalStateOf(e);
      ctx.expect(
        'sse.job.terminal-after-burst',
        `real diarization: burst ${burst.join(',')} then cancel`,
        x.that(
          s.events.length === 1 && named !== null && named === job.state,
          `one event naming the final state (${String(job.state)})`,
          `${describeStream(s)}; GET /v1/jobs/{id} state ${x.show(job.state)}`,
        ),
        res,
      );
    },
    { runs: ctx.runs(0.2) },
  );
  if (seenRunning === 0)
    ctx.skip('no real diarization was seen running before its burst (each ended first): no burst of job events to observe');
}

export const check = defineCheck({
  id: 'sse/terminal-after-burst',
  clauses: ['sse.job.terminal-after-burst'],
  level: 'requirement',
  touches: 'own',
  needs: ['token'],
  // Without the Control API's jobs: the import of a long meeting (shared by the run), then up to ten real diarizations, on a target that may be busy.
  timeoutMs: 300_000,
  description:
    'A property over bursts: with a job wait open on a held job, fires a random sequence of ' +
    'pause/resume requests without waiting, then ends the job (cancel, or finish ' +
    'succeeded/failed through the Control API): the one event names the terminal state GET ' +
    '/v1/jobs/{id} reports. Without the Control API’s jobs: real diarizations of a long ' +
    'imported meeting, each seen running, then a burst and a cancel.',
  requirement: 'After a burst of job events, the job wait resolves with the terminal state the job actually reached.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    if (!ctx.has('jobs')) return realJobs(ctx, api);
    const m = await ctx.fixtures.meeting();
    await ctx.property(
      'burst then end',
      fc.record({
        burst: fc.array(fc.constantFrom<Step>('pause', 'resume'), { minLength: 1, maxLength: 6 }),
        end: fc.constantFrom<End>('cancel', 'finish:succeeded', 'finish:failed'),
      }),
      async ({ burst, end }) => {
        const id = await ctx.control.createJob({ kind: 'diarization', meeting_id: m.id, state: 'running', hold: true });
        const stream = openSse(ctx.api, `/v1/jobs/${id}/wait`, {
          token: api.token,
          query: { timeout: 20 },
          deadlineMs: 15_000,
          closeGraceMs: 1500,
        });
        await ctx.sleep(100);
        await Promise.all(burst.map((s) => api.post(`/v1/jobs/${id}/${s}`)));
        // A paused job is resumed before a finish (the Control API finishes running jobs).
        if (end === 'cancel') await api.post(`/v1/jobs/${id}/cancel`);
        else {
          const { job } = await getJob(api, id);
          if (job.state !== 'running') await api.post(`/v1/jobs/${id}/resume`);
          for (let i = 0; i < 20 && (await getJob(api, id)).job.state !== 'running'; i++) await ctx.sleep(50);
          await ctx.control.finishJob(
            id,
            end === 'finish:succeeded' ? 'succeeded' : 'failed',
            end === 'finish:failed' ? 'boom' : undefined,
          );
        }
        const s = await stream.done;
        const { res, job } = await getJob(api, id);
        skipWhenJobWaitOutlasted(ctx, `the job wait after the burst and ${end} (15 s)`, s, job);
        const e = s.events[0];
        const named = e === undefined ? null : terminalStateOf(e);
        ctx.expect(
          'sse.job.terminal-after-burst',
          `burst ${burst.join(',')} then ${end}`,
          x.that(
            s.events.length === 1 && named !== null && named === job.state,
            `one event naming the final state (${String(job.state)})`,
            `${describeStream(s)}; GET /v1/jobs/{id} state ${x.show(job.state)}`,
          ),
          res,
        );
      },
      { runs: ctx.runs(0.2) },
    );
  },
});
