import { defineCheck } from '../../harness/check.ts';
import type { CheckContext } from '../../harness/context.ts';
import type { Delivery } from '../../harness/exchange.ts';
import * as x from '../../harness/expect.ts';
import { pollJob } from '../../harness/jobs.ts';
import { envelopeOf, hookTo } from '../../harness/webhooks.ts';

export const check = defineCheck({
  id: 'events/job-events',
  clauses: [
    'events.job-completed',
    'events.job-failed',
    'events.job-cancelled',
    'events.job-paused.maybe-twice',
    'events.job-resumed',
    'events.envelope.fields',
  ],
  level: 'requirement',
  touches: 'own',
  needs: ['receiver', 'settings', 'restart', 'webhook-approval', 'jobs', 'meetings', 'tokens'],
  timeoutMs: 60_000,
  description:
    'An approved webhook subscribed to the five job events; three held jobs (Control API): one ' +
    'finished succeeded, one failed, one paused, resumed and cancelled. Each transition arrives ' +
    'as its event (job.paused once or twice, same job id) with resource {kind, id: the job id}, ' +
    'and every envelope has schema_version (integer), a unique event_id, event, occurred_at, ' +
    'resource and delivery_id.',
  requirement: 'job.completed is emitted when a job reaches succeeded.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const { endpoint } = await hookTo(ctx, api, 'jobs', ['job.completed', 'job.failed', 'job.cancelled', 'job.paused', 'job.resumed'], {
      status: 204,
    });
    // Only this check's jobs count, so the quiet wait below ends on its own events, not on those of checks beside it.
    const mine = new Set<string>();
    endpoint.only((d) => mine.has(String(envelopeOf(d)?.resource?.id)));
    const m = await ctx.fixtures.meeting();
    const ok = await ctx.control.createJob({ kind: 'diarization', meeting_id: m.id, state: 'running', hold: true });
    const bad = await ctx.control.createJob({ kind: 'diarization', meeting_id: m.id, state: 'running', hold: true });
    const pr = await ctx.control.createJob({ kind: 'diarization', meeting_id: m.id, state: 'running', hold: true });
    for (const id of [ok, bad, pr]) mine.add(id);
    await ctx.control.finishJob(ok, 'succeeded');
    await ctx.control.finishJob(bad, 'failed', 'diarizer crashed');
    await api.post(`/v1/jobs/${pr}/pause`);
    await pollJob(api, pr, (j) => j.state === 'paused', 3000, 100);
    await api.post(`/v1/jobs/${pr}/resume`);
    await ctx.sleep(300);
    await api.post(`/v1/jobs/${pr}/cancel`);
    // API.md sets no delivery time, and a receiver that answers slowly spaces a target's
    // deliveries wider than any quiet period: wait for each expected event first (30 s budget,
    // SKIP naming what is missing when it runs out), then for quiet, to see what else arrives.
    const expected: Array<[string, string]> = [
      ['job.completed', ok],
      ['job.failed', bad],
      ['job.paused', pr],
      ['job.resumed', pr],
      ['job.cancelled', pr],
    ];
    const missing = (): string[] =>
      expected
        .filter(([event, id]) => !endpoint.deliveries.some((d) => envelopeOf(d)?.event === event && envelopeOf(d)?.resource?.id === id))
        .map(([event]) => event);
    const until = Date.now() + 30_000;
    while (missing().length > 0 && Date.now() < until) await ctx.sleep(200);
    if (missing().length > 0)
      return ctx.skip(
        `the suite’s time budget (30 s) ran out before ${missing().join(', ')} arrived (API.md sets no delivery time; decision 081)`,
      );
    const ds = await endpoint.quiet(3000, 8000);
    expectTransitions(ctx, ds, ok, bad, pr);
    expectEnvelopes(ctx, ds);
  },
});

/** Each transition arrived as its event, with the job id; job.paused once or twice, and no other outcome for the job that succeeded. */
function expectTransitions(ctx: CheckContext, ds: Delivery[], ok: string, bad: string, pr: string): void {
  const of = (event: string, id: string): Delivery[] =>
    ds.filter((d) => envelopeOf(d)?.event === event && envelopeOf(d)?.resource?.id === id);
  const list = ds.map((d) => `${String(envelopeOf(d)?.event)}(${String(envelopeOf(d)?.resource?.id).slice(0, 12)})`).join(', ');
  ctx.expect(
    'events.job-completed',
    'job.completed for the job finished succeeded',
    x.that(of('job.completed', ok).length >= 1, 'job.completed with resource.id = the job id', list),
  );
  ctx.expect(
    'events.job-failed',
    'job.failed for the job finished failed',
    x.that(of('job.failed', bad).length >= 1, 'job.failed with resource.id = the job id', list),
  );
  ctx.expect(
    'events.job-cancelled',
    'job.cancelled for the cancelled job',
    x.that(of('job.cancelled', pr).length >= 1, 'job.cancelled with resource.id = the job id', list),
  );
  const paused = of('job.paused', pr).length;
  // Only this check's jobs count: a target also reports the jobs of others (e.g. under --jobs).
  const pausedAny = ds.filter(
    (d) => envelopeOf(d)?.event === 'job.paused' && [ok, bad, pr].includes(String(envelopeOf(d)?.resource?.id)),
  ).length;
  ctx.expect(
    'events.job-paused.maybe-twice',
    'job.paused for the paused job',
    x.that(paused >= 1 && paused <= 2 && pausedAny === paused, 'one or two job.paused, all with the job id', list),
  );
  ctx.expect(
    'events.job-resumed',
    'job.resumed for the resumed job',
    x.that(of('job.resumed', pr).length >= 1, 'job.resumed with resource.id = the job id', list),
  );
  ctx.expect(
    'events.job-completed',
    'events for the succeeded job',
    x.that(
      !ds.some((d) => envelopeOf(d)?.resource?.id === ok && ['job.failed', 'job.cancelled'].includes(String(envelopeOf(d)?.event))),
      'no job.failed or job.cancelled',
      list,
    ),
  );
}

/** Every envelope has its fields and resource, and an event_id of its own (a job.paused delivered twice may repeat its id). */
function expectEnvelopes(ctx: CheckContext, ds: Delivery[]): void {
  const eventIds = new Map<string, string>();
  for (const d of ds) {
    const e = envelopeOf(d);
    ctx.expect(
      'events.envelope.fields',
      `envelope of ${String(e?.event)}`,
      x.fields(
        e,
        {
          schema_version: 'integer',
          event_id: 'string',
          event: 'string',
          occurred_at: 'timestamp',
          resource: 'object',
          delivery_id: 'string',
        },
        'envelope',
      ),
    );
    ctx.expect(
      'events.envelope.fields',
      `resource of ${String(e?.event)}`,
      x.fields(e?.resource, { kind: 'string', id: 'string' }, 'resource'),
    );
    const key = `${String(e?.event)}/${String(e?.resource?.id)}/${d.seq}`;
    if (typeof e?.event_id === 'string') {
      const prior = eventIds.get(e.event_id);
      // job.paused may legitimately be the same event delivered twice; other events must not share ids.
      ctx.expect(
        'events.envelope.fields',
        `event_id of ${key}`,
        x.that(
          prior === undefined || (prior.startsWith('job.paused') && e.event === 'job.paused'),
          'unique per event',
          `also used by ${prior ?? ''}`,
        ),
      );
      eventIds.set(e.event_id, key);
    }
  }
}
