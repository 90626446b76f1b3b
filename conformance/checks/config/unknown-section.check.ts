import fc from 'fast-check';
import { defineCheck } from '../../harness/check.ts';
import type { HttpResult } from '../../harness/http.ts';
import { CONFIG_SECTIONS } from '../../spec/constants.ts';

function matched(res: HttpResult): number | null {
  if (res.status === 404 && res.errorCode === 'not_found') return 0;
  if (res.status === 422 && res.errorCode === 'invalid_request') return 1;
  return null;
}

export const check = defineCheck({
  id: 'config/unknown-section',
  clauses: ['config.section.unknown'],
  level: 'conflict',
  needs: ['token'],
  description:
    'GET and PUT /v1/config/{name} for names outside the eight (a property over names) answer ' +
    '404 not_found or 422 invalid_request; the spec accepts either and the one used is ' +
    'recorded.',
  requirement:
    'A section name outside the eight valid ones is refused, with 404 in one description and ' +
    '422 in another, and the spec does not choose between them.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const names = fc.stringMatching(/^[a-z][a-z0-9-]{0,24}$/).filter((n) => !(CONFIG_SECTIONS as readonly string[]).includes(n));
    const first = await api.get('/v1/config/not-a-section');
    ctx.conflict('config.section.unknown', 'GET /v1/config/not-a-section', matched(first), first.describe(160), first);
    await ctx.property(
      'unknown section names',
      fc.record({ name: names, method: fc.constantFrom('GET', 'PUT') }),
      async ({ name, method }) => {
        const res = await api.request(method, `/v1/config/${name}`, method === 'PUT' ? { json: {} } : {});
        if (matched(res) === null) ctx.conflict('config.section.unknown', `${method} /v1/config/${name}`, null, res.describe(160), res);
      },
      {
        runs: ctx.runs(0.5),
        examples: [
          { name: 'vads', method: 'GET' },
          { name: 'all', method: 'PUT' },
          { name: 'speaker_identification', method: 'GET' },
        ],
      },
    );
  },
});
