import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { openSse } from '../../harness/sse.ts';
import { describeStream, isTimeoutEvent } from '../../harness/waits.ts';

export const check = defineCheck({
  id: 'sse/slow-caps',
  clauses: ['sse.job.timeout.default-300', 'sse.job.timeout.cap-3600', 'sse.wait.cap-3600'],
  level: 'requirement',
  needs: ['slow', 'jobs', 'meetings', 'token'],
  timeoutMs: 3_800_000,
  description:
    'On held running jobs: a job wait without timeout ends with a timeout event at about 300 s; ' +
    'a job wait with timeout=7200 is accepted at once (200) and ends at about 3600 s; a ' +
    'recording wait (until=started, timeout=7200) and a summary-operation wait are closed by ' +
    'about 3600 s as well. About an hour.',
  requirement: 'Without a timeout parameter the job wait times out after 300 seconds.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const m = await ctx.fixtures.meeting();
    const a = await ctx.control.createJob({ kind: 'diarization', meeting_id: m.id, state: 'running', hold: true });
    const b = await ctx.control.createJob({ kind: 'diarization', meeting_id: m.id, state: 'running', hold: true });
    const CAP = 3600_000 + 60_000;
    const def = openSse(ctx.api, `/v1/jobs/${a}/wait`, {
      token: api.token,
      deadlineMs: 360_000,
      closeGraceMs: 3000,
      label: 'job wait without timeout',
    });
    const capped = openSse(ctx.api, `/v1/jobs/${b}/wait`, {
      token: api.token,
      query: { timeout: 7200 },
      deadlineMs: CAP,
      closeGraceMs: 3000,
      label: 'job wait timeout=7200',
    });
    const rec = openSse(ctx.api, '/v1/recording/wait', {
      token: api.token,
      query: { until: 'started', timeout: 7200 },
      deadlineMs: CAP,
      closeGraceMs: 3000,
      label: 'recording wait timeout=7200',
    });
    await ctx.sleep(2000);
    ctx.expect(
      'sse.job.timeout.cap-3600',
      'GET /v1/jobs/{id}/wait?timeout=7200 at once',
      x.that(capped.status() === 200, '200 (accepted, capped)', `status ${capped.status()}`),
    );
    const d = await def.done;
    const e = d.events[0];
    ctx.expect(
      'sse.job.timeout.default-300',
      'job wait without timeout',
      x.that(isTimeoutEvent(e) && e!.atMs >= 295_000 && e!.atMs <= 310_000, 'a timeout event at about 300 s', describeStream(d)),
      d.exchange,
    );
    const c = await capped.done;
    const ce = c.events[0];
    ctx.expect(
      'sse.job.timeout.cap-3600',
      'job wait with timeout=7200',
      x.that(isTimeoutEvent(ce) && ce!.atMs >= 3_500_000 && ce!.atMs <= 3_660_000, 'a timeout event at about 3600 s', describeStream(c)),
      c.exchange,
    );
    const r = await rec.done;
    ctx.expect(
      'sse.wait.cap-3600',
      'recording wait with timeout=7200',
      x.that(r.closedByServer && r.endedAtMs <= 3_660_000, 'closed by about 3600 s', describeStream(r)),
      r.exchange,
    );
    await api.post(`/v1/jobs/${a}/cancel`);
    await api.post(`/v1/jobs/${b}/cancel`);
  },
});
