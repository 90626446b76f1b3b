import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { importSpeech, isTerminal, pollJob } from '../../harness/jobs.ts';
import { envelopeOf, hookTo } from '../../harness/webhooks.ts';

const SPOKEN = ['release', 'track', 'Friday', 'budget', 'approved'];

export const check = defineCheck({
  id: 'events/import-events',
  clauses: ['events.transcript-updated', 'summary.app-generated.no-operation', 'events.no-content'],
  level: 'requirement',
  needs: ['receiver', 'settings', 'restart', 'webhook-approval', 'tokens'],
  timeoutMs: 180_000,
  description:
    'An approved webhook for transcript.updated, summary.completed and job.completed; imports a ' +
    'short WAV with speech: transcript.updated arrives, summary.completed arrives without ' +
    'operation_id (the application made that summary), and no delivery carries the spoken ' +
    'words.',
  requirement: 'transcript.updated is emitted when a transcript changes and serves only as a liveness signal.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const { endpoint } = await hookTo(ctx, api, 'import', ['transcript.updated', 'summary.completed', 'job.completed'], { status: 204 });
    const { res, jobId } = await importSpeech(ctx, api);
    if (jobId === null) return ctx.skip(`the import was not accepted (${res.describe(150)}); jobs/import-speech reports it`);
    const { job } = await pollJob(api, jobId, isTerminal, 150_000, 500);
    if (job.state !== 'succeeded') return ctx.skip(`the import ended ${String(job.state)}; jobs/import-speech reports it`);
    const until = Date.now() + 20_000;
    while (Date.now() < until && !endpoint.deliveries.some((d) => envelopeOf(d)?.event === 'summary.completed')) await ctx.sleep(300);
    const ds = await endpoint.quiet(1000, 4000);
    const names = ds.map((d) => String(envelopeOf(d)?.event)).join(', ');
    ctx.expect(
      'events.transcript-updated',
      'events after the import',
      x.that(
        ds.some((d) => envelopeOf(d)?.event === 'transcript.updated'),
        'transcript.updated',
        names || 'none',
      ),
    );
    for (const d of ds) {
      const words = SPOKEN.filter((w) => d.body.toLowerCase().includes(w.toLowerCase()));
      ctx.expect(
        'events.no-content',
        `delivery ${String(envelopeOf(d)?.event)}`,
        x.that(words.length === 0, 'no transcript or summary words', `contains ${words.join(', ')}: ${d.body.slice(0, 250)}`),
      );
    }
    const sc = ds.filter((d) => envelopeOf(d)?.event === 'summary.completed');
    if (sc.length === 0 && typeof job.meeting_id === 'string') {
      // No summary.completed within the 20 s: if the automatic summary is not there yet either, the budget ran
      // out before it was made (a slow target, no time is stated), not an event that was left out (decision 081).
      const summary = await api.get(`/v1/meetings/${job.meeting_id}/summary`, {
        label: 'the automatic summary, not announced within 20 s',
      });
      const body = (summary.body ?? {}) as { result?: unknown; error?: unknown; status?: unknown };
      if (summary.status === 404 || (summary.status === 200 && (body.result ?? null) === null && (body.error ?? null) === null))
        ctx.skip(
          `the suite's time budget (20 s after the import) ran out before the automatic summary was made (GET …/summary: ${summary.describe(150)}); events seen: ${names || 'none'}`,
        );
    }
    ctx.expect(
      'summary.app-generated.no-operation',
      'summary.completed of the automatic summary',
      x.that(
        sc.length >= 1 && sc.every((d) => (envelopeOf(d)?.operation_id ?? null) === null),
        'summary.completed without operation_id',
        sc.map((d) => d.body.slice(0, 250)).join(' | ') || `none (${names})`,
      ),
    );
  },
});
