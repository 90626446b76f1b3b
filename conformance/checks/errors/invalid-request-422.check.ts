import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'errors/invalid-request-422',
  clauses: ['errors.code.invalid_request.422'],
  level: 'requirement',
  touches: 'own',
  needs: ['token', 'meeting'],
  description:
    'Well-formed JSON bodies that fail validation answer 422 invalid_request: a numeric or list ' +
    'title, a numeric summary text, labels that are not an object, a config section that is not ' +
    'an object.',
  requirement: 'The code invalid_request is sent with status 422 when the body or parameters fail validation.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const m = await ctx.fixtures.meeting();
    const cases: Array<[string, string, unknown]> = [
      ['PATCH', `/v1/meetings/${m.id}`, { title: 42 }],
      ['PUT', `/v1/meetings/${m.id}/summary`, { text: 42 }],
      ['PUT', `/v1/meetings/${m.id}/speaker-labels`, { labels: 'S1' }],
      ['PATCH', `/v1/meetings/${m.id}`, { title: ['a', 'b'] }],
      ['PUT', '/v1/config/vad', []],
      ['PUT', '/v1/config/vad', 'enabled'],
    ];
    for (const [method, path, body] of cases) {
      const res = await api.request(method, path, { json: body });
      ctx.expect(
        'errors.code.invalid_request.422',
        `${method} ${path.replace(m.id, '{id}')} ${JSON.stringify(body)}`,
        x.error(res, 422, 'invalid_request'),
        res,
      );
    }
  },
});
