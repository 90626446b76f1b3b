import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { lookalikeId } from '../../harness/probes.ts';

export const check = defineCheck({
  id: 'errors/not-found-404',
  clauses: ['errors.code.not_found.404'],
  level: 'requirement',
  touches: 'own',
  needs: ['token'],
  description:
    'Ids of the same form as a real id that name nothing answer 404 not_found: meeting, ' +
    'transcript, summary, export, rename, overwrite and delete routes, and (with the Control ' +
    'API jobs capability) job routes.',
  requirement:
    'The code not_found is sent with status 404 when the addressed resource (meeting, job, ' +
    'webhook, operation, pairing) does not exist.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write', 'delete']));
    let real: string;
    try {
      real = await ctx.fixtures.readableMeeting(api.token);
    } catch {
      real = '3f1c0b7e-3f7e-4b0e-9d55-0c1d2e3f4a5b';
    }
    // Unknown ids keep the form of real ones: an id of the wrong form may be a 400 ("invalid reference").
    const id = lookalikeId(real);
    const cases: Array<[string, string, unknown?]> = [
      ['GET', `/v1/meetings/${id}`],
      ['GET', `/v1/meetings/${id}/transcript`],
      ['GET', `/v1/meetings/${id}/summary`],
      ['GET', `/v1/meetings/${id}/export`],
      ['PATCH', `/v1/meetings/${id}`, { title: 'Renamed' }],
      ['PUT', `/v1/meetings/${id}/summary`, { text: 'Summary.' }],
      ['DELETE', `/v1/meetings/${id}`],
    ];
    let jobLabel: [string, string] | null = null;
    if (ctx.has('jobs')) {
      const job = await ctx.control.createJob({ kind: 'diarization', state: 'succeeded' });
      const unknownJob = lookalikeId(job);
      cases.push(['GET', `/v1/jobs/${unknownJob}`], ['POST', `/v1/jobs/${unknownJob}/cancel`]);
      jobLabel = [unknownJob, '{unknown job}'];
    } else ctx.note("no Control API 'jobs' capability: job ids were not tried (their form is unknown)");
    for (const [method, path, body] of cases) {
      const res = await api.request(method, path, body === undefined ? {} : { json: body });
      let label = path.replaceAll(id, '{unknown}').replaceAll(real, '{id}');
      if (jobLabel !== null) label = label.replaceAll(jobLabel[0], jobLabel[1]);
      ctx.expect('errors.code.not_found.404', `${method} ${label}`, x.error(res, 404, 'not_found'), res);
    }
  },
});
