import fc from 'fast-check';
import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { UNDECODABLE, getJob, importBytes, jobIdOf } from '../../harness/jobs.ts';
import { IMPORT_EXTENSIONS } from '../../spec/constants.ts';

export const check = defineCheck({
  id: 'jobs/import-validation',
  clauses: [
    'jobs.import.extensions.accepted',
    'jobs.import.extensions.other-rejected',
    'jobs.import.filename.required',
    'jobs.import.filename.extension-only',
  ],
  level: 'requirement',
  touches: 'own',
  needs: ['token'],
  timeoutMs: 120_000,
  description:
    'Each of the ten extensions (any case of the base name, directory parts in front) is ' +
    'accepted with 202 {job_id} of kind import; a property over other extensions expects a 4xx ' +
    'envelope; no filename is refused.',
  requirement: 'Imports whose filename extension is mp4, m4a, wav, mp3, flac, ogg, aac, mkv, webm or wma are accepted.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    for (const ext of IMPORT_EXTENSIONS) {
      const res = await importBytes(api, UNDECODABLE, { filename: `clip.${ext}` });
      ctx.expect(
        'jobs.import.extensions.accepted',
        `POST /v1/jobs/import?filename=clip.${ext}`,
        x.all(x.status(res, 202), x.that(jobIdOf(res) !== null, '{"job_id"}', res.describe(120))),
        res,
      );
    }
    const none = await importBytes(api, UNDECODABLE, {});
    ctx.expect('jobs.import.filename.required', 'POST /v1/jobs/import without filename', x.refused(none, 400), none);
    const empty = await importBytes(api, UNDECODABLE, { filename: '' });
    ctx.expect('jobs.import.filename.required', 'POST /v1/jobs/import?filename= (empty)', x.refused(empty, 400), empty);
    for (const name of ['../../etc/a/b.wav', '/home/someone/Music/talk.wav', 'C:\\Users\\x\\clip.wav', 'no extension here.mp3']) {
      const res = await importBytes(api, UNDECODABLE, { filename: name });
      const id = jobIdOf(res);
      ctx.expect(
        'jobs.import.filename.extension-only',
        `POST /v1/jobs/import?filename=${name}`,
        x.all(x.status(res, 202), x.that(id !== null, '{"job_id"}', res.describe(120))),
        res,
      );
      if (id !== null) {
        const { res: got, job } = await getJob(api, id);
        ctx.expect(
          'jobs.import.filename.extension-only',
          `GET /v1/jobs/${id}`,
          x.that(job.kind === 'import', 'a job of kind import', got.describe(150)),
          got,
        );
      }
    }
    const otherExt = fc.oneof(
      fc.constantFrom('txt', 'exe', 'wavx', 'mp', 'pdf', 'json', 'wav.txt', 'm4', 'aiff', 'opus', ''),
      fc.stringMatching(/^[a-z0-9]{1,6}$/).filter((e) => !(IMPORT_EXTENSIONS as readonly string[]).includes(e)),
    );
    await ctx.property(
      'other extensions',
      otherExt,
      async (ext) => {
        const filename = ext === '' ? 'clip' : `clip.${ext}`;
        const res = await importBytes(api, UNDECODABLE, { filename });
        ctx.expect('jobs.import.extensions.other-rejected', `POST /v1/jobs/import?filename=${filename}`, x.refused(res, 400), res);
      },
      { runs: ctx.runs(0.3), examples: ['txt', 'wav.txt', ''] },
    );
  },
});
