import { defineCheck } from '../../harness/check.ts';
import type { CheckContext } from '../../harness/context.ts';
import type { BoundClient } from '../../harness/context-types.ts';
import { getJob, importSpeech } from '../../harness/jobs.ts';
import { openSse, readSse } from '../../harness/sse.ts';
import { describeStream } from '../../harness/waits.ts';

export const check = defineCheck({
  id: 'sse/gaps',
  clauses: ['sse.wait.event-name.gap', 'sse.wait.default-timeout.gap'],
  level: 'gap',
  // 'recorder': it observes the recording wait while idle, which a recording beside it would end early.
  touches: 'recorder',
  needs: ['token'],
  timeoutMs: 60_000,
  description:
    'Records the name and data of the resolving event of a job wait (a held job the Control API ' +
    'finishes, or a real import of the shipped speech) and of a summary-operation wait, and ' +
    'what the recording wait and the summary-operation wait do in 3 s without a timeout ' +
    'parameter.',
  requirement: 'The name and data of the resolving (non-timeout) event on a wait stream are not shown and are implementation-defined.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    // The two recording waits observe the idle recorder only, so they run beside the job and summary waits
    // below (which touch no recording) instead of after them: the same observations, about 1.5 s sooner.
    const recordingWaits = Promise.all([
      readSse(ctx.api, '/v1/recording/wait', { token: api.token, query: { until: 'started' }, deadlineMs: 3000, closeGraceMs: 500 }),
      readSse(ctx.api, '/v1/recording/wait', {
        token: api.token,
        query: { until: 'started', timeout: 1 },
        deadlineMs: 5000,
        closeGraceMs: 500,
      }),
    ]);
    try {
      await jobAndSummaryWaits(ctx, api);
    } finally {
      const [r, unit] = await recordingWaits;
      ctx.observe(
        'sse.wait.default-timeout.gap',
        'recording wait until=started without timeout (3 s, idle)',
        describeStream(r),
        r.exchange,
      );
      ctx.observe('sse.wait.default-timeout.gap', 'recording wait until=started&timeout=1 (the unit)', describeStream(unit), unit.exchange);
    }
  },
});

async function jobAndSummaryWaits(ctx: CheckContext, api: BoundClient): Promise<void> {
  let meetingId: string;
  if (ctx.has('jobs') && ctx.has('meetings')) {
    meetingId = (await ctx.fixtures.meeting()).id;
    const id = await ctx.control.createJob({ kind: 'diarization', meeting_id: meetingId, state: 'running', hold: true });
    const stream = openSse(ctx.api, `/v1/jobs/${id}/wait`, {
      token: api.token,
      query: { timeout: 20 },
      deadlineMs: 10_000,
      closeGraceMs: 1000,
    });
    await ctx.sleep(200);
    await ctx.control.finishJob(id, 'succeeded');
    const s = await stream.done;
    ctx.observe('sse.wait.event-name.gap', 'job wait, job finished succeeded', describeStream(s), s.exchange);
  } else {
    // Without the Control API: the wait on a real import, which ends by itself.
    const { res, jobId } = await importSpeech(ctx, api, { filename: 'conformance-wait.wav', title: 'Conformance wait', language: 'en' });
    if (jobId === null) return ctx.skip(`needs a job to wait on: importing the shipped speech answered ${res.describe(160)}`);
    const s = await readSse(ctx.api, `/v1/jobs/${jobId}/wait`, {
      token: api.token,
      query: { timeout: 60 },
      deadlineMs: 65_000,
      closeGraceMs: 1000,
      label: 'job wait on a real import',
    });
    ctx.observe('sse.wait.event-name.gap', 'job wait on a real import, until it ended', describeStream(s), s.exchange);
    const { job } = await getJob(api, jobId);
    if (typeof job.meeting_id !== 'string') {
      ctx.note(`the import ended in state ${String(job.state)} with no meeting; the summary-operation wait is not recorded`);
      meetingId = '';
    } else meetingId = job.meeting_id;
  }
  const m = { id: meetingId };
  const regen = m.id === '' ? null : await api.post(`/v1/meetings/${m.id}/summary/regenerate`, { json: {} });
  const op = (regen?.body as { operation_id?: unknown } | undefined)?.operation_id;
  if (typeof op === 'string') {
    const w = await readSse(ctx.api, `/v1/meetings/${m.id}/summary/operations/${op}/wait`, {
      token: api.token,
      deadlineMs: 3000,
      closeGraceMs: 500,
    });
    ctx.observe('sse.wait.event-name.gap', 'summary-operation wait', describeStream(w), w.exchange);
    ctx.observe('sse.wait.default-timeout.gap', 'summary-operation wait without timeout_ms (3 s)', describeStream(w), w.exchange);
  }
}
