import { defineCheck } from '../../harness/check.ts';
import type { Exchange } from '../../harness/exchange.ts';
import * as x from '../../harness/expect.ts';

const ENVELOPE = '{"error": {"code": <string>, "message": <string>}}';

export function envelopeProblem(e: Exchange): string | null {
  const res = e.response!;
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    return res.truncated === true ? null : `body is not JSON: ${res.body.slice(0, 120) || '(empty)'}`;
  }
  const err = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  if (err === null || typeof err !== 'object') return `no error object: ${res.body.slice(0, 160)}`;
  if (typeof err.code !== 'string' || err.code.length === 0) return `error.code is ${x.typeName(err.code)}: ${res.body.slice(0, 160)}`;
  if (typeof err.message !== 'string') return `error.message is ${x.typeName(err.message)}: ${res.body.slice(0, 160)}`;
  return null;
}

export const check = defineCheck({
  id: 'errors/envelope-on-every-error',
  clauses: ['errors.envelope.shape'],
  level: 'requirement',
  needs: [],
  order: 'last',
  description:
    'Provokes errors of many kinds (unknown route, no token, unknown token, malformed JSON, ' +
    'wrong types, unknown ids, empty search), then checks that every non-2xx answer the whole ' +
    'run met carries {"error": {"code": string, "message": string}}.',
  requirement:
    'Every non-2xx response body is {"error": {"code": <string>, "message": <string>}}, with ' +
    'code a stable machine string and message human-readable text that may change.',
  async run(ctx) {
    const junk = `conformance-unknown-${ctx.fixtures.word()}`;
    await ctx.api.get('/v1/no-such-route');
    await ctx.api.get('/v1/meetings');
    await ctx.api.get('/v1/meetings', { token: junk });
    await ctx.api.post('/v1/pair/request', { body: '{"client_name": ', contentType: 'application/json' });
    if (ctx.has('tokens') || ctx.env.userToken !== null) {
      const api = ctx.as(await ctx.token(['read', 'write']));
      await api.get('/v1/no-such-route');
      await api.get('/v1/search', { query: { q: '' } });
      await api.get('/v1/meetings/00000000-0000-4000-8000-000000000000');
      await api.put('/v1/config/vad', { body: '{"enabled": ', contentType: 'application/json' });
      await api.put('/v1/config/vad', { json: [] });
      await api.get('/v1/config/no-such-section');
      await api.get('/v1/meetings', { query: { limit: 'many' } });
      await api.delete('/v1/meetings/00000000-0000-4000-8000-000000000000');
    }
    const bad = new Map<string, { e: Exchange; problem: string }>();
    let checked = 0;
    for (const e of [...ctx.runLog, ...ctx.attempt.exchanges]) {
      const res = e.response;
      if (res === undefined || e.channel !== 'api' || (res.status >= 200 && res.status < 300) || e.request.method === 'HEAD') continue;
      checked += 1;
      const problem = envelopeProblem(e);
      if (problem === null) continue;
      const key = `${e.request.method} ${new URL(e.request.url).pathname.replace(/[0-9a-f]{8}-[0-9a-f-]{27,}/gi, '{id}')} → ${res.status}`;
      if (!bad.has(key)) bad.set(key, { e, problem });
    }
    for (const [key, { e, problem }] of [...bad.entries()].slice(0, 20))
      ctx.expect('errors.envelope.shape', key, x.that(false, ENVELOPE, problem), e);
    if (bad.size > 20) ctx.note(`${bad.size - 20} more routes answered an error without the envelope`);
    ctx.note(`${checked} non-2xx answers of the run were checked`);
  },
});
