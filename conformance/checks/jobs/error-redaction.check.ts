import fc from 'fast-check';
import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { getJob } from '../../harness/jobs.ts';

const seg = fc.stringMatching(/^[a-z][a-z0-9_-]{1,9}$/);

export const check = defineCheck({
  id: 'jobs/error-redaction',
  clauses: ['jobs.error.redact-home', 'jobs.error.redact-abs-path'],
  level: 'requirement',
  touches: 'own',
  needs: ['jobs', 'token'],
  description:
    'A property over failed jobs (Control API) whose error names /home/<user>/…, ' +
    '/Users/<user>/… or another absolute path: GET /v1/jobs/{id} shows ~/… without the user ' +
    'name for home paths, and only the file name for other absolute paths.',
  requirement: "A path under the user's home folder inside a job error is shown starting with ~ and without the user name.",
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    const home = fc.record({
      user: seg.map((u) => `u${u}`),
      root: fc.constantFrom('/home', '/Users'),
      dirs: fc.array(seg, { minLength: 1, maxLength: 3 }),
      file: seg.map((f) => `${f}.wav`),
    });
    await ctx.property(
      'home paths',
      home,
      async ({ user, root, dirs, file }) => {
        const rel = [...dirs, file].join('/');
        const id = await ctx.control.createJob({
          kind: 'import',
          state: 'failed',
          is_retryable: false,
          error: `decoder failed on ${root}/${user}/${rel}`,
        });
        const { res, job } = await getJob(api, id);
        const err = typeof job.error === 'string' ? job.error : '';
        ctx.expect(
          'jobs.error.redact-home',
          `error "decoder failed on ${root}/${user}/${rel}"`,
          x.that(
            err.includes(`~/${rel}`) && !err.includes(user) && !err.includes(`${root}/`),
            `shows ~/${rel}, no "${user}"`,
            `error ${x.show(job.error)}`,
          ),
          res,
        );
      },
      { runs: ctx.runs(0.2), examples: [{ user: 'ualice', root: '/home', dirs: ['Music'], file: 'x.wav' }] },
    );
    const abs = fc.record({
      root: fc.constantFrom('/var/lib', '/tmp', '/opt/app', '/mnt/data'),
      dirs: fc.array(seg, { minLength: 1, maxLength: 3 }),
      file: seg.map((f) => `${f}.m4a`),
    });
    await ctx.property(
      'other absolute paths',
      abs,
      async ({ root, dirs, file }) => {
        const full = [root, ...dirs, file].join('/');
        const id = await ctx.control.createJob({
          kind: 'import',
          state: 'failed',
          is_retryable: false,
          error: `cannot open ${full}: permission denied`,
        });
        const { res, job } = await getJob(api, id);
        const err = typeof job.error === 'string' ? job.error : '';
        ctx.expect(
          'jobs.error.redact-abs-path',
          `error "cannot open ${full}: permission denied"`,
          x.that(
            err.includes(file) && !err.includes(`${root}/`) && !err.includes(`/${dirs.join('/')}/`),
            `shows ${file} only`,
            `error ${x.show(job.error)}`,
          ),
          res,
        );
      },
      { runs: ctx.runs(0.2), examples: [{ root: '/var/lib', dirs: ['mas', 'cache'], file: 'y.m4a' }] },
    );
  },
});
