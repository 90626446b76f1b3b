import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { UNDECODABLE, importBytes, isTerminal, jobIdOf, pollJob } from '../../harness/jobs.ts';

export const check = defineCheck({
  id: 'jobs/import-undecodable',
  clauses: ['jobs.transition.failed', 'jobs.error.set-on-failure'],
  level: 'requirement',
  touches: 'own',
  needs: ['token'],
  description:
    'Imports text bytes named x.wav: the job is accepted (or refused at once with a 4xx), and ' +
    'an accepted one ends failed with its error set.',
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
    ctx.expect(
      'jobs.transition.failed',
      'the job of undecodable bytes, polled until terminal (60 s)',
      x.that(reached && job.state === 'failed', 'state failed', `state ${x.show(job.state)}`),
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
