import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { getJob, isTerminal, jobIdOf } from '../../harness/jobs.ts';

export const check = defineCheck({
  id: 'jobs/diarization',
  clauses: ['jobs.diarization.submit', 'jobs.diarization.meeting-id-required', 'jobs.diarization.same-meeting.409'],
  level: 'requirement',
  touches: 'own',
  needs: ['meeting', 'token'],
  // Without the Control API its meetings are imports, which a busy target transcribes slowly (60 s ran out at load 27 on 2 cores).
  timeoutMs: 180_000,
  description:
    'POST /v1/jobs/diarization {meeting_id} and {meeting_id, speaker_count: 2} → 2xx {job_id} ' +
    'of kind diarization; without meeting_id → 4xx; while a held diarization job (Control API) ' +
    'runs for a meeting, a submit for it → 409. Without the Control API the meetings are ' +
    'imports, and the 409 is asked of a second submit sent right after a first: a 2xx while the ' +
    'first job is still unfinished fails; a first job that already ended makes the check ' +
    'SKIPPED.',
  requirement:
    'POST /v1/jobs/diarization with {meeting_id} and an optional speaker_count (omitted meaning ' +
    'automatic) creates a diarization job and returns {job_id}.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    for (const body of [{}, { speaker_count: 2 }]) {
      const m = await ctx.fixtures.meeting({ audio: true });
      const res = await api.post('/v1/jobs/diarization', { json: { meeting_id: m.id, ...body } });
      const id = jobIdOf(res);
      ctx.expect(
        'jobs.diarization.submit',
        `POST /v1/jobs/diarization ${JSON.stringify({ meeting_id: m.id, ...body })}`,
        x.all(x.success(res), x.that(id !== null, '{"job_id"}', res.describe(150))),
        res,
      );
      if (id !== null) {
        const { res: got, job } = await getJob(api, id);
        ctx.expect(
          'jobs.diarization.submit',
          'GET /v1/jobs/{job_id}',
          x.that(job.kind === 'diarization', 'kind diarization', got.describe(150)),
          got,
        );
      }
    }
    for (const body of [{}, { speaker_count: 2 }, { meeting_id: null }]) {
      const res = await api.post('/v1/jobs/diarization', { json: body });
      ctx.expect('jobs.diarization.meeting-id-required', `POST /v1/jobs/diarization ${JSON.stringify(body)}`, x.refused(res, 422), res);
    }
    const busy = await ctx.fixtures.meeting({ audio: true });
    const controlled = ctx.has('jobs') && ctx.has('meetings');
    const held = controlled
      ? await ctx.control.createJob({ kind: 'diarization', meeting_id: busy.id, state: 'running', hold: true })
      : jobIdOf(
          await api.post('/v1/jobs/diarization', { json: { meeting_id: busy.id }, label: 'a first diarization, to submit another beside' }),
        );
    if (held === null) return ctx.skip('the first diarization submit gave no job_id (graded above under jobs.diarization.submit)');
    const dup = await api.post('/v1/jobs/diarization', { json: { meeting_id: busy.id } });
    if (!controlled && dup.status !== 409) {
      // A real diarization may end before the second submit arrives: then a new job is rightly accepted.
      const { res: now, job } = await getJob(api, held);
      ctx.premise(
        'the first diarization still unfinished when the second was accepted',
        { ok: !isTerminal(job), expected: ['a job not yet finished'], actual: `state ${String(job.state)}` },
        now,
      );
    }
    ctx.expect(
      'jobs.diarization.same-meeting.409',
      'POST /v1/jobs/diarization while one runs for the same meeting',
      x.error(dup, 409),
      dup,
    );
    await api.post(`/v1/jobs/${held}/cancel`, { label: 'clean up' });
  },
});
