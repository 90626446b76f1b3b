import { defineCheck } from '../../harness/check.ts';
import { runningImport } from '../../harness/api-fixtures.ts';
import * as x from '../../harness/expect.ts';
import { getJob, isTerminal } from '../../harness/jobs.ts';
import { readSse } from '../../harness/sse.ts';
import { describeStream, isTimeoutEvent } from '../../harness/waits.ts';

export const check = defineCheck({
  id: 'sse/timeout-event',
  clauses: ['sse.wait.timeout-event', 'sse.job.timeout.seconds'],
  level: 'requirement',
  touches: 'own',
  needs: ['token'],
  description:
    'GET /v1/jobs/{id}/wait?timeout=1 and ?timeout=2 on a running job (held through the Control ' +
    'API, or a real import of a long recording): 200, one event named timeout after about 1 s ' +
    'and 2 s (seconds, not milliseconds or minutes), then the server closes; the job is still ' +
    'running. A real import that ends during a wait makes the check SKIPPED.',
  requirement: 'When a wait times out, the stream delivers a single event named timeout instead of an HTTP error.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const held = ctx.has('jobs') && ctx.has('meetings');
    const id = held
      ? await ctx.control.createJob({ kind: 'diarization', meeting_id: (await ctx.fixtures.meeting()).id, state: 'running', hold: true })
      : await runningImport(ctx, api);
    for (const seconds of [1, 2]) {
      const s = await readSse(ctx.api, `/v1/jobs/${id}/wait`, {
        token: api.token,
        query: { timeout: seconds },
        deadlineMs: seconds * 1000 + 6000,
        closeGraceMs: 3000,
        label: `job wait with timeout=${seconds}`,
      });
      const e = s.events[0];
      if (!held && !(e !== undefined && isTimeoutEvent(e))) {
        // A real import may finish during the wait: then the one event rightly names its end, not a timeout.
        const { res: now, job } = await getJob(api, id);
        ctx.premise(
          `the import still running through the wait with timeout=${seconds}`,
          { ok: !isTerminal(job), expected: ['a job not yet finished'], actual: `state ${String(job.state)}` },
          now,
        );
      }
      ctx.expect(
        'sse.wait.timeout-event',
        `GET /v1/jobs/{id}/wait?timeout=${seconds} on a running job`,
        x.that(
          s.status === 200 && s.events.length === 1 && isTimeoutEvent(e) && s.closedByServer,
          '200, one event named timeout, then close',
          describeStream(s),
        ),
        s.exchange,
      );
      if (e !== undefined) {
        const lo = seconds * 1000 - 250;
        const hi = seconds * 1000 + 2500;
        ctx.expect(
          'sse.job.timeout.seconds',
          `time of the timeout event for timeout=${seconds}`,
          x.that(e.atMs >= lo && e.atMs <= hi, `between ${lo} and ${hi} ms`, `${e.atMs} ms`),
          s.exchange,
        );
      }
    }
    await api.post(`/v1/jobs/${id}/cancel`, { label: 'clean up' });
  },
});
