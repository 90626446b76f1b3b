import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { readSse } from '../../harness/sse.ts';
import { describeStream, isTimeoutEvent } from '../../harness/waits.ts';

export const check = defineCheck({
  id: 'sse/timeout-event',
  clauses: ['sse.wait.timeout-event', 'sse.job.timeout.seconds'],
  level: 'requirement',
  touches: 'own',
  needs: ['jobs', 'meetings', 'token'],
  description:
    'GET /v1/jobs/{id}/wait?timeout=1 and ?timeout=2 on a held running job: 200, one event named timeout after about 1 s and 2 s (seconds, not milliseconds or minutes), then the server closes; the job is still running.',
  requirement: 'When a wait times out, the stream delivers a single event named timeout instead of an HTTP error.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const m = await ctx.fixtures.meeting();
    const id = await ctx.control.createJob({ kind: 'diarization', meeting_id: m.id, state: 'running', hold: true });
    for (const seconds of [1, 2]) {
      const s = await readSse(ctx.api, `/v1/jobs/${id}/wait`, { token: api.token, query: { timeout: seconds }, deadlineMs: seconds * 1000 + 6000, closeGraceMs: 3000, label: `job wait with timeout=${seconds}` });
      const e = s.events[0];
      ctx.expect('sse.wait.timeout-event', `GET /v1/jobs/{id}/wait?timeout=${seconds} on a running job`, x.that(s.status === 200 && s.events.length === 1 && isTimeoutEvent(e) && s.closedByServer, '200, one event named timeout, then close', describeStream(s)), s.exchange);
      if (e !== undefined) {
        const lo = seconds * 1000 - 250;
        const hi = seconds * 1000 + 2500;
        ctx.expect('sse.job.timeout.seconds', `time of the timeout event for timeout=${seconds}`, x.that(e.atMs >= lo && e.atMs <= hi, `between ${lo} and ${hi} ms`, `${e.atMs} ms`), s.exchange);
      }
    }
    await api.post(`/v1/jobs/${id}/cancel`, { label: 'clean up' });
  },
});
