import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { UNDECODABLE, importBytes, isTerminal, jobIdOf, pollJob } from '../../harness/jobs.ts';

export const check = defineCheck({
  id: 'jobs/import-undecodable',
  clauses: ['jobs.transition.failed', 'jobs.error.set-on-failure'],
  level: 'requirement',
  touches: 'own',
  needs: ['token'],
  // The upload (up to 30 s) and the 60 s wait for its end both fit, so a wait that runs out is a SKIPPED naming it.
  timeoutMs: 120_000,
  description:
    'Imports text bytes named x.wav: the job is accepted (or refused at once with a 4xx). Premise: ' +
    'the target treats the bytes as an error (API.md never says undecodable bytes are one; a target ' +
    'may keep them as an empty meeting): an accepted job that ends in error must end failed with its ' +
    'error set. A job that succeeds, or does not end within 60 s, is SKIPPED with why.',
  requirement: 'A running job that ends in error moves to failed.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const res = await importBytes(api, UNDECODABLE, { filename: 'x.wav' }, 'import undecodable bytes named x.wav');
    const id = jobIdOf(res);
    if (id === null) {
      ctx.expect('jobs.transition.failed', 'POST /v1/jobs/import?filename=x.wav with text bytes', x.refused(res), res);
      return ctx.skip(`the undecodable upload was refused at once (${res.status}); no job ran to fail`);
    }
    const { res: last, job, reached } = await pollJob(api, id, isTerminal, 60_000);
    // The clauses are about jobs that end in error. Whether these bytes are an error is the target's
    // choice (decision 073): a job still going after the wait, or one that succeeded (the bytes kept as
    // an empty meeting) or was cancelled, says nothing about how an ending in error is shown.
    if (!reached)
      return ctx.skip(
        `the job of undecodable bytes did not end within the 60 s wait (state ${x.show(job.state)}): no ending in error to look at`,
      );
    if (job.state !== 'failed')
      return ctx.skip(
        `premise not met: the target did not treat the undecodable bytes as an error (the job ended ${x.show(job.state)}; API.md does not say they are one), so no job ended in error`,
      );
    ctx.expect(
      'jobs.transition.failed',
      'the job of undecodable bytes, polled until terminal (60 s)',
      x.that(job.state === 'failed', 'state failed', `state ${x.show(job.state)}`),
      last,
    );
    ctx.expect(
      'jobs.error.set-on-failure',
      'error of the failed job',
      x.that(typeof job.error === 'string' && job.error.length > 0, 'a non-empty error', `error ${x.show(job.error)}`),
      last,
    );
  },
});
