import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { openSse, readSse } from '../../harness/sse.ts';
import { describeStream, isTimeoutEvent, terminalStateOf } from '../../harness/waits.ts';

export const check = defineCheck({
  id: 'sse/job-wait',
  clauses: ['sse.stream.format', 'sse.wait.one-event-then-close', 'sse.job.resolves-terminal-only'],
  level: 'requirement',
  touches: 'own',
  needs: ['jobs', 'meetings', 'token'],
  description:
    'Opens GET /v1/jobs/{id}/wait on a held running job (Control API), finishes it: 200 text/event-stream, no event before the finish, then exactly one event naming the terminal state and the server closes; the recording wait and the summary-operation wait are event streams as well, each with one event and a close.',
  requirement: 'The three wait routes answer with a plain Server-Sent-Events stream that needs nothing beyond the bearer token.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const m = await ctx.fixtures.meeting();
    for (const outcome of ['succeeded', 'failed'] as const) {
      const id = await ctx.control.createJob({ kind: 'diarization', meeting_id: m.id, state: 'running', hold: true });
      const stream = openSse(ctx.api, `/v1/jobs/${id}/wait`, { token: api.token, query: { timeout: 30 }, deadlineMs: 15_000, closeGraceMs: 3000, label: `job wait, then finish(${outcome})` });
      await ctx.sleep(700);
      const early = [...stream.events];
      await ctx.control.finishJob(id, outcome, outcome === 'failed' ? 'diarizer crashed' : undefined);
      const s = await stream.done;
      ctx.expect('sse.stream.format', `GET /v1/jobs/{id}/wait (finish ${outcome})`, x.that(s.status === 200 && s.mediaType === 'text/event-stream', '200 Content-Type text/event-stream', describeStream(s)), s.exchange);
      ctx.expect('sse.job.resolves-terminal-only', 'events before the job ended (700 ms)', x.that(early.length === 0, 'none: a running job does not resolve the wait', describeStream(s)), s.exchange);
      ctx.expect('sse.wait.one-event-then-close', 'the job wait after the finish', x.that(s.events.length === 1 && s.closedByServer, 'exactly one event, then the server closes the stream', describeStream(s)), s.exchange);
      const e = s.events[0];
      ctx.expect('sse.job.resolves-terminal-only', `the event of a job finished ${outcome}`, x.that(e !== undefined && !isTimeoutEvent(e) && terminalStateOf(e) === outcome, `an event naming ${outcome} (job.${outcome === 'succeeded' ? 'completed' : 'failed'})`, describeStream(s)), s.exchange);
    }
    const rec = await readSse(ctx.api, '/v1/recording/wait', { token: api.token, query: { until: 'started', timeout: 1 }, deadlineMs: 8000, closeGraceMs: 3000 });
    ctx.expect('sse.stream.format', 'GET /v1/recording/wait?until=started&timeout=1', x.that(rec.status === 200 && rec.mediaType === 'text/event-stream', '200 Content-Type text/event-stream', describeStream(rec)), rec.exchange);
    ctx.expect('sse.wait.one-event-then-close', 'the recording wait (idle, timeout=1)', x.that(rec.events.length === 1 && rec.closedByServer, 'exactly one event, then the server closes the stream', describeStream(rec)), rec.exchange);
    const regen = await api.post(`/v1/meetings/${m.id}/summary/regenerate`, { json: {} });
    const op = (regen.body as { operation_id?: unknown; process_id?: unknown } | undefined) ?? {};
    const opId = typeof op.operation_id === 'string' ? op.operation_id : typeof op.process_id === 'string' ? op.process_id : null;
    if (opId === null) return ctx.note(`the regenerate answer carries no operation id (${regen.describe(150)}); summary/regenerate reports it`);
    const sum = await readSse(ctx.api, `/v1/meetings/${m.id}/summary/operations/${opId}/wait`, { token: api.token, query: { timeout_ms: 10_000 }, deadlineMs: 15_000, closeGraceMs: 3000 });
    ctx.expect('sse.stream.format', 'GET …/summary/operations/{operation_id}/wait', x.that(sum.status === 200 && sum.mediaType === 'text/event-stream', '200 Content-Type text/event-stream', describeStream(sum)), sum.exchange);
    ctx.expect('sse.wait.one-event-then-close', 'the summary-operation wait', x.that(sum.events.length === 1 && sum.closedByServer, 'exactly one event, then the server closes the stream', describeStream(sum)), sum.exchange);
  },
});
