import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { getJob, importBytes, importSpeech, isTerminal, jobIdOf, UNDECODABLE } from '../../harness/jobs.ts';
import { summaryTextOf } from '../../harness/api-fixtures.ts';
import type { SseResult } from '../../harness/sse.ts';
import { openSse, readSse } from '../../harness/sse.ts';
import { describeStream, isTimeoutEvent, skipWhenJobWaitOutlasted, terminalStateOf } from '../../harness/waits.ts';
import type { CheckContext } from '../../harness/context.ts';
import type { BoundClient } from '../../harness/context-types.ts';

export const check = defineCheck({
  id: 'sse/job-wait',
  clauses: ['sse.stream.format', 'sse.wait.one-event-then-close', 'sse.job.resolves-terminal-only', 'events.no-content'],
  level: 'requirement',
  touches: 'own',
  needs: ['token'],
  description:
    'Opens GET /v1/jobs/{id}/wait on a held running job (Control API), finishes it: 200 ' +
    'text/event-stream, no event before the finish, then exactly one event naming the terminal ' +
    'state and the server closes (without the Control API: the waits on a real import of the ' +
    'shipped speech and of undecodable bytes, each event naming the state the job ended in); ' +
    'the recording wait and the summary-operation wait are event streams as well, each with one ' +
    'event and a close; no event of these waits carries a segment of the meeting’s transcript ' +
    'or its summary text.',
  requirement: 'The three wait routes answer with a plain Server-Sent-Events stream that needs nothing beyond the bearer token.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    if (!(ctx.has('jobs') && ctx.has('meetings'))) return realJobWaits(ctx, api);
    const m = await ctx.fixtures.meeting();
    for (const outcome of ['succeeded', 'failed'] as const) {
      const id = await ctx.control.createJob({ kind: 'diarization', meeting_id: m.id, state: 'running', hold: true });
      const stream = openSse(ctx.api, `/v1/jobs/${id}/wait`, {
        token: api.token,
        query: { timeout: 30 },
        deadlineMs: 15_000,
        closeGraceMs: 3000,
        label: `job wait, then finish(${outcome})`,
      });
      await ctx.sleep(700);
      const early = [...stream.events];
      await ctx.control.finishJob(id, outcome, outcome === 'failed' ? 'diarizer crashed' : undefined);
      const s = await stream.done;
      ctx.expect(
        'sse.stream.format',
        `GET /v1/jobs/{id}/wait (finish ${outcome})`,
        x.that(s.status === 200 && s.mediaType === 'text/event-stream', '200 Content-Type text/event-stream', describeStream(s)),
        s.exchange,
      );
      ctx.expect(
        'sse.job.resolves-terminal-only',
        'events before the job ended (700 ms)',
        x.that(early.length === 0, 'none: a running job does not resolve the wait', describeStream(s)),
        s.exchange,
      );
      // No event by the reader's 15 s while the job still runs (the finish not applied yet): slow, not wrong (decision 081).
      skipWhenJobWaitOutlasted(ctx, `the job wait after finish(${outcome}) (15 s)`, s, (await getJob(api, id)).job);
      ctx.expect(
        'sse.wait.one-event-then-close',
        'the job wait after the finish',
        x.that(s.events.length === 1 && s.closedByServer, 'exactly one event, then the server closes the stream', describeStream(s)),
        s.exchange,
      );
      const e = s.events[0];
      ctx.expect(
        'sse.job.resolves-terminal-only',
        `the event of a job finished ${outcome}`,
        x.that(
          e !== undefined && !isTimeoutEvent(e) && terminalStateOf(e) === outcome,
          `an event naming ${outcome} (job.${outcome === 'succeeded' ? 'completed' : 'failed'})`,
          describeStream(s),
        ),
        s.exchange,
      );
    }
    await otherWaits(ctx, api, m.id);
  },
});

/**
 * Without held jobs: the wait on real imports (the shipped speech, which should
 * succeed, and undecodable bytes, which should fail), each opened at once; the
 * one event must name the terminal state the job reports afterwards.
 */
async function realJobWaits(ctx: CheckContext, api: BoundClient): Promise<void> {
  let meetingId: string | null = null;
  let speechWait: SseResult | null = null;
  for (const kind of ['speech', 'undecodable'] as const) {
    const { res, jobId } =
      kind === 'speech'
        ? await importSpeech(ctx, api, { filename: 'conformance-wait.wav', title: 'Conformance job wait', language: 'en' })
        : await (async () => {
            const r = await importBytes(
              api,
              UNDECODABLE,
              { filename: 'conformance-undecodable.wav' },
              'import bytes that are not audio (a job expected to fail)',
            );
            return { res: r, jobId: jobIdOf(r) };
          })();
    if (jobId === null) {
      if (kind === 'speech') return ctx.skip(`needs a job to wait on: importing the shipped speech answered ${res.describe(160)}`);
      ctx.note(`importing undecodable bytes made no job (${res.describe(120)}); the wait on a failed job is not checked`);
      continue;
    }
    const s = await readSse(ctx.api, `/v1/jobs/${jobId}/wait`, {
      token: api.token,
      query: { timeout: 60 },
      deadlineMs: 65_000,
      closeGraceMs: 3000,
      label: `job wait on a real import (${kind})`,
    });
    const { res: got, job } = await getJob(api, jobId);
    if (kind === 'speech' && typeof job.meeting_id === 'string') {
      meetingId = job.meeting_id;
      speechWait = s;
    }
    const first = s.events[0];
    // A wait that timed out on a job still transcribing says nothing; an event other than timeout on an unfinished job is graded below.
    ctx.premise(
      `the import (${kind}) ended within the 60 s wait`,
      {
        ok: isTerminal(job) || (first !== undefined && !isTimeoutEvent(first)),
        expected: ['a terminal state'],
        actual: `state ${String(job.state)}`,
      },
      got,
    );
    ctx.expect(
      'sse.stream.format',
      `GET /v1/jobs/{id}/wait (real import, ${kind})`,
      x.that(s.status === 200 && s.mediaType === 'text/event-stream', '200 Content-Type text/event-stream', describeStream(s)),
      s.exchange,
    );
    ctx.expect(
      'sse.wait.one-event-then-close',
      `the job wait on a real import (${kind})`,
      x.that(s.events.length === 1 && s.closedByServer, 'exactly one event, then the server closes the stream', describeStream(s)),
      s.exchange,
    );
    const e = s.events[0];
    ctx.expect(
      'sse.job.resolves-terminal-only',
      `the event of a job that ended ${String(job.state)}`,
      x.that(
        e !== undefined && !isTimeoutEvent(e) && terminalStateOf(e) === job.state,
        `an event naming ${String(job.state)}`,
        describeStream(s),
      ),
      s.exchange,
    );
  }
  if (meetingId === null) return ctx.skip('the import of the shipped speech made no meeting: the summary-operation wait cannot be checked');
  await otherWaits(ctx, api, meetingId, speechWait === null ? [] : [['the job wait on the import of speech', speechWait]]);
}

/** The recording wait (idle) and the summary-operation wait are event streams too: one event, then a close. */
async function otherWaits(ctx: CheckContext, api: BoundClient, meetingId: string, earlier: Array<[string, SseResult]> = []): Promise<void> {
  const m = { id: meetingId };
  {
    const rec = await readSse(ctx.api, '/v1/recording/wait', {
      token: api.token,
      query: { until: 'started', timeout: 1 },
      deadlineMs: 8000,
      closeGraceMs: 3000,
    });
    ctx.expect(
      'sse.stream.format',
      'GET /v1/recording/wait?until=started&timeout=1',
      x.that(rec.status === 200 && rec.mediaType === 'text/event-stream', '200 Content-Type text/event-stream', describeStream(rec)),
      rec.exchange,
    );
    ctx.expect(
      'sse.wait.one-event-then-close',
      'the recording wait (idle, timeout=1)',
      x.that(rec.events.length === 1 && rec.closedByServer, 'exactly one event, then the server closes the stream', describeStream(rec)),
      rec.exchange,
    );
    const regen = await api.post(`/v1/meetings/${m.id}/summary/regenerate`, { json: {} });
    const op = (regen.body as { operation_id?: unknown; process_id?: unknown } | undefined) ?? {};
    const opId = typeof op.operation_id === 'string' ? op.operation_id : typeof op.process_id === 'string' ? op.process_id : null;
    if (opId === null) {
      ctx.note(`the regenerate answer carries no operation id (${regen.describe(150)}); summary/regenerate reports it`);
      return;
    }
    const sum = await readSse(ctx.api, `/v1/meetings/${m.id}/summary/operations/${opId}/wait`, {
      token: api.token,
      query: { timeout_ms: 10_000 },
      deadlineMs: 15_000,
      closeGraceMs: 3000,
    });
    ctx.expect(
      'sse.stream.format',
      'GET …/summary/operations/{operation_id}/wait',
      x.that(sum.status === 200 && sum.mediaType === 'text/event-stream', '200 Content-Type text/event-stream', describeStream(sum)),
      sum.exchange,
    );
    ctx.expect(
      'sse.wait.one-event-then-close',
      'the summary-operation wait',
      x.that(sum.events.length === 1 && sum.closedByServer, 'exactly one event, then the server closes the stream', describeStream(sum)),
      sum.exchange,
    );
    await noContent(ctx, api, meetingId, [...earlier, ['the summary-operation wait', sum], ['the recording wait', rec]]);
  }
}

/**
 * No event on a wait stream carries transcript or summary content: the events' data must hold no
 * segment text of the meeting's transcript and not its summary text (whole texts of 12 characters
 * or more, so a word they share by chance does not count).
 */
async function noContent(ctx: CheckContext, api: BoundClient, meetingId: string, streams: Array<[string, SseResult]>): Promise<void> {
  const t = await api.get(`/v1/meetings/${meetingId}/transcript`, { label: 'the transcript, to look for in the wait events' });
  const segments = (t.body as { segments?: Array<{ text?: unknown }> } | undefined)?.segments ?? [];
  const sum = await api.get(`/v1/meetings/${meetingId}/summary`, { label: 'the summary, to look for in the wait events' });
  const summary = summaryTextOf((sum.body as { result?: unknown } | undefined)?.result);
  const texts = [...segments.map((g) => (typeof g.text === 'string' ? g.text.trim() : '')), summary?.trim() ?? ''].filter(
    (text) => text.length >= 12,
  );
  if (texts.length === 0) {
    ctx.note('not checked: the meeting has no transcript segment or summary text of 12 characters or more to look for in the wait events');
    return;
  }
  for (const [label, stream] of streams) {
    const data = stream.events.map((e) => e.data).join('\n');
    const found = texts.find((text) => data.includes(text));
    ctx.expect(
      'events.no-content',
      `the events of ${label}`,
      x.that(
        found === undefined,
        'no transcript segment and no summary text',
        found === undefined ? describeStream(stream) : `carries ${x.show(found.slice(0, 80))}`,
      ),
      stream.exchange,
    );
  }
}
