import { defineCheck } from '../../harness/check.ts';
import type { Exchange } from '../../harness/exchange.ts';
import * as x from '../../harness/expect.ts';

const SNAKE = /^[a-z][a-z0-9_]*$/;

/**
 * Keys the service did not define: the labels map (speaker cluster keys chosen
 * by the client or the diarizer) and speaker cluster keys such as "S1" used as
 * map keys. The manifest follows OpenAPI's own naming and is left out.
 */
const DATA_KEYED = new Set(['labels']);
const SPEAKER_KEY = /^S\d+$/;

export function nonSnakeKeys(value: unknown, path = '$', out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v, i) => nonSnakeKeys(v, `${path}[${i}]`, out));
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (!SNAKE.test(k) && !SPEAKER_KEY.test(k)) out.push(`${path}.${k}`);
      if (!DATA_KEYED.has(k)) nonSnakeKeys(v, `${path}.${k}`, out);
    }
  }
  return out;
}

export const check = defineCheck({
  id: 'format/snake-case-keys',
  clauses: ['format.json.snake-case'],
  level: 'requirement',
  needs: ['token'],
  order: 'last',
  description: 'Every key of every JSON answer of the run (the manifest and client-chosen map keys aside) matches ^[a-z][a-z0-9_]*$.',
  requirement: 'Field names that the service defines in its JSON request and response bodies are snake_case.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    const meeting = await ctx.fixtures.readableMeeting(api.token).catch(() => null);
    const paths = ['/health', '/v1/whoami', '/v1/meetings', '/v1/devices', '/v1/models', '/v1/search?q=morning', '/v1/nonexistent-route'];
    for (const s of [
      'vad',
      'diarization',
      'speaker-identification',
      'meeting-detection',
      'global-shortcut',
      'audio-player',
      'custom-words',
      'initial-prompt',
    ])
      paths.push(`/v1/config/${s}`);
    if (meeting !== null)
      paths.push(
        `/v1/meetings/${meeting}`,
        `/v1/meetings/${meeting}/transcript`,
        `/v1/meetings/${meeting}/summary`,
        `/v1/meetings/${meeting}/export`,
      );
    for (const p of paths) await api.get(p);
    const bad = new Map<string, { keys: string[]; e: Exchange }>();
    let checked = 0;
    for (const e of [...ctx.runLog, ...ctx.attempt.exchanges]) {
      const res = e.response;
      if (res === undefined || res.truncated === true || e.channel !== 'api') continue;
      const url = new URL(e.request.url);
      if (url.pathname.endsWith('/openapi.json')) continue;
      let body: unknown;
      try {
        body = JSON.parse(res.body);
      } catch {
        continue;
      }
      checked += 1;
      const keys = nonSnakeKeys(body);
      if (keys.length === 0) continue;
      const route = `${e.request.method} ${url.pathname.replace(/[0-9a-f]{8}-[0-9a-f-]{27,}/gi, '{id}')}`;
      if (!bad.has(route)) bad.set(route, { keys, e });
    }
    for (const [route, { keys, e }] of bad) {
      ctx.expect(
        'format.json.snake-case',
        `keys of the JSON answer to ${route}`,
        x.that(false, 'every key snake_case (^[a-z][a-z0-9_]*$)', `not snake_case: ${keys.slice(0, 8).join(', ')}`),
        e,
      );
    }
    ctx.note(`${checked} JSON answers were checked`);
  },
});
