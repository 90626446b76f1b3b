import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { pollPath } from '../../harness/pairing.ts';

export const check = defineCheck({
  id: 'pairing/poll-no-auth',
  clauses: ['pairing.poll.no-auth'],
  level: 'requirement',
  needs: [],
  description:
    'The pairing request just made can be polled with GET /v1/pair/{id} without an ' +
    'Authorization header: 2xx, with no raw token before approval.',
  requirement: "GET /v1/pair/{id} needs no Authorization header and reports the pairing's status until it is approved or rejected.",
  async run(ctx) {
    const body = { json: { client_name: `Conformance ${ctx.fixtures.word(6)}`, scopes: ['read'] } };
    let req = await ctx.api.post('/v1/pair/request', body);
    if (!req.ok && (ctx.has('tokens') || ctx.env.userToken !== null)) {
      // pairing/request-no-auth reports the refusal; get a pairing to poll with a token instead.
      ctx.note(`POST /v1/pair/request without a token answered ${req.status}; the pairing to poll was requested with a token`);
      req = await ctx.as(await ctx.token(['read'])).post('/v1/pair/request', body);
    }
    if (!req.ok) return ctx.skip(`POST /v1/pair/request answered ${req.describe(120)} (pairing/request-no-auth reports it)`);
    const path = pollPath(req);
    if (path === null) return ctx.skip(`cannot find the pairing id in the request’s answer (its shape is a gap): ${req.describe(200)}`);
    const poll = await ctx.api.get(path);
    ctx.expect('pairing.poll.no-auth', `GET ${path} without a token`, x.all(x.success(poll), x.json(poll)), poll);
    const token = (poll.body as { token?: unknown } | undefined)?.token;
    ctx.expect(
      'pairing.poll.no-auth',
      `GET ${path} before any approval`,
      x.that(typeof token !== 'string' || token.length === 0, 'no raw token yet', `token ${x.show(token)}`),
      poll,
    );
  },
});
