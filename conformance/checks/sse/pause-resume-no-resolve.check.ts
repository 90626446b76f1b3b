import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { pollJob } from '../../harness/jobs.ts';
import { openSse } from '../../harness/sse.ts';
import { describeStream, terminalStateOf } from '../../harness/waits.ts';

export const check = defineCheck({
  id: 'sse/pause-resume-no-resolve',
  clauses: ['sse.job.pause-resume-no-resolve'],
  level: 'requirement',
  touches: 'own',
  needs: ['jobs', 'meetings', 'token'],
  description:
    'With a job wait open on a held running diarization job, pauses it, waits for paused, resumes it: the stream stays open with no event; then a cancel resolves it with one event naming cancelled.',
  requirement: 'Pausing or resuming a job (job.paused, job.resumed) never resolves an open job wait.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const m = await ctx.fixtures.meeting();
    const id = await ctx.control.createJob({ kind: 'diarization', meeting_id: m.id, state: 'running', hold: true });
    const stream = openSse(ctx.api, `/v1/jobs/${id}/wait`, { token: api.token, query: { timeout: 30 }, deadlineMs: 20_000, closeGraceMs: 3000 });
    await ctx.sleep(200);
    const p = await api.post(`/v1/jobs/${id}/pause`);
    if (!p.ok) {
      stream.close();
      await stream.done;
      return ctx.skip(`the pause was refused (${p.status}); jobs/lifecycle-model reports it`);
    }
    await pollJob(api, id, (j) => j.state === 'paused', 3000, 100);
    await ctx.sleep(400);
    await api.post(`/v1/jobs/${id}/resume`);
    await ctx.sleep(800);
    const during = [...stream.events];
    await api.post(`/v1/jobs/${id}/cancel`);
    const s = await stream.done;
    ctx.expect('sse.job.pause-resume-no-resolve', 'events on the job wait across pause and resume', x.that(during.length === 0, 'none (the wait stays open)', describeStream(s)), s.exchange);
    const e = s.events[0];
    ctx.expect('sse.job.pause-resume-no-resolve', 'the event after the cancel', x.that(s.events.length === 1 && e !== undefined && terminalStateOf(e) === 'cancelled', 'one event naming cancelled', describeStream(s)), s.exchange);
  },
});
