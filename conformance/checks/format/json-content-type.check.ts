import { defineCheck } from '../../harness/check.ts';
import type { Exchange } from '../../harness/exchange.ts';
import * as x from '../../harness/expect.ts';

/** Answers that are not JSON by the spec: SSE waits and md/txt exports (2xx only). */
export function jsonExpected(e: Exchange): boolean {
  const res = e.response;
  if (res === undefined || res.bodyBytes === 0 || e.channel !== 'api') return false;
  if (e.request.method === 'HEAD' || e.request.method === 'OPTIONS') return false;
  const url = new URL(e.request.url);
  const ok = res.status >= 200 && res.status < 300;
  if (!ok) return true; // every error carries the JSON envelope
  if (url.pathname.endsWith('/wait')) return false;
  if (url.pathname.endsWith('/export') && ['md', 'markdown', 'txt', 'text'].includes(url.searchParams.get('format') ?? '')) return false;
  return true;
}

export function isJsonMediaType(contentType: string | undefined): boolean {
  const mt = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return mt === 'application/json' || (mt.startsWith('application/') && mt.endsWith('+json'));
}

export const check = defineCheck({
  id: 'format/json-content-type',
  clauses: ['format.json.bodies'],
  level: 'requirement',
  needs: ['token'],
  order: 'last',
  description:
    'Every answer with a body on a JSON route (all but SSE waits and md/txt exports), successes ' +
    'and errors alike, is Content-Type application/json with a body that parses: a sweep of ' +
    'read routes plus every answer of the run.',
  requirement: 'Request and response bodies are JSON, except the import request body (raw bytes), SSE wait streams and md/txt exports.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    const meeting = await ctx.fixtures.readableMeeting(api.token).catch(() => null);
    const paths = [
      '/health',
      '/v1/whoami',
      '/openapi.json',
      '/v1/meetings',
      '/v1/devices',
      '/v1/models',
      '/v1/config/vad',
      '/v1/search?q=probe',
    ];
    if (meeting !== null)
      paths.push(
        `/v1/meetings/${meeting}`,
        `/v1/meetings/${meeting}/transcript`,
        `/v1/meetings/${meeting}/summary`,
        `/v1/meetings/${meeting}/export`,
      );
    for (const p of paths) await api.get(p);
    await ctx.api.get('/v1/meetings'); // 401
    const seen = [...ctx.runLog, ...ctx.attempt.exchanges];
    const bad = new Map<string, Exchange>();
    let checked = 0;
    for (const e of seen) {
      if (!jsonExpected(e)) continue;
      checked += 1;
      const res = e.response!;
      let parses = true;
      try {
        JSON.parse(res.body);
      } catch {
        parses = res.truncated === true; // a cut body cannot be parsed here
      }
      if (isJsonMediaType(res.headers['content-type']) && parses) continue;
      const key = `${e.request.method} ${new URL(e.request.url).pathname.replace(/[0-9a-f]{8}-[0-9a-f-]{27,}/gi, '{id}')} → ${res.status}`;
      if (!bad.has(key)) bad.set(key, e);
    }
    for (const [key, e] of [...bad.entries()].slice(0, 15)) {
      ctx.expect(
        'format.json.bodies',
        key,
        x.that(
          false,
          'Content-Type application/json and a JSON body',
          `Content-Type ${e.response!.headers['content-type'] ?? '(none)'}: ${e.response!.body.slice(0, 160)}`,
        ),
        e,
      );
    }
    if (bad.size > 15) ctx.note(`${bad.size - 15} more routes answered without JSON`);
    ctx.note(`${checked} answers with a body on JSON routes were checked (${seen.length} exchanges in the run so far)`);
  },
});
