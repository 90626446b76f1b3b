import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { UNDECODABLE, importBytes, isTerminal, jobIdOf, pollJob, speechWav } from '../../harness/jobs.ts';
import { speechPath } from '../../harness/audio.ts';

export const check = defineCheck({
  id: 'jobs/import-no-source-path',
  clauses: ['jobs.import.no-source-path'],
  level: 'requirement',
  needs: ['token', 'local'],
  description:
    'Imports undecodable bytes with path, source, source_path, file and url parameters naming a valid WAV on this machine (the target runs here): the job must still fail on the uploaded bytes, never succeed from the named file.',
  requirement: 'Import has no source-path parameter, so the service imports only the uploaded bytes and never reads a server-side path named by the caller.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    try {
      await speechWav();
    } catch (err) {
      return ctx.skip(`cannot read the shipped WAV to point at: ${(err as Error).message}`);
    }
    const real = speechPath('tiny');
    const res = await importBytes(api, UNDECODABLE, { filename: 'x.wav', path: real, source: real, source_path: real, file: real, url: `file://${real}` });
    const id = jobIdOf(res);
    if (id === null) {
      ctx.expect('jobs.import.no-source-path', 'POST /v1/jobs/import with path-like parameters', x.refused(res), res);
      return;
    }
    const { res: last, job } = await pollJob(api, id, isTerminal, 60_000);
    ctx.expect('jobs.import.no-source-path', `the job of undecodable bytes with path=${real}`, x.that(job.state === 'failed', 'state failed (the uploaded bytes were imported, not the named file)', `state ${x.show(job.state)}, meeting_id ${x.show(job.meeting_id)}`), last);
  },
});
