import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'errors/bad-request-400',
  clauses: ['errors.code.bad_request.400'],
  level: 'requirement',
  touches: 'own',
  needs: ['token'],
  description:
    'Malformed requests answer 400 bad_request: an empty search q, and a JSON body that does ' +
    'not parse (PUT /v1/config/vad, PATCH /v1/meetings/{id}).',
  requirement: 'The code bad_request is sent with status 400 for a malformed request or an invalid reference.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const q = await api.get('/v1/search', { query: { q: '' } });
    ctx.expect('errors.code.bad_request.400', 'GET /v1/search?q=', x.error(q, 400, 'bad_request'), q);
    for (const raw of ['{"enabled": ', '{enabled: true}', 'not json at all']) {
      const res = await api.put('/v1/config/vad', { body: raw, contentType: 'application/json' });
      ctx.expect(
        'errors.code.bad_request.400',
        `PUT /v1/config/vad with the unparsable body ${JSON.stringify(raw)}`,
        x.error(res, 400, 'bad_request'),
        res,
      );
    }
    if (ctx.has('meetings')) {
      const m = await ctx.fixtures.meeting();
      const res = await api.patch(`/v1/meetings/${m.id}`, { body: '{"title": "x"', contentType: 'application/json' });
      ctx.expect(
        'errors.code.bad_request.400',
        'PATCH /v1/meetings/{id} with a truncated JSON body',
        x.error(res, 400, 'bad_request'),
        res,
      );
    }
  },
});
