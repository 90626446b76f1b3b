import { defineCheck } from '../../harness/check.ts';
import type { CheckContext } from '../../harness/context.ts';
import type { BoundClient } from '../../harness/context-types.ts';
import * as x from '../../harness/expect.ts';
import type { HttpResult } from '../../harness/http.ts';
import { fetchManifest } from '../../harness/manifest.ts';
import { ManifestResponses } from '../../harness/openapi-responses.ts';

/** A state read back, without the fields that record when it was written (a second write may move them). */
function state(res: HttpResult): string {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v === null || typeof v !== 'object') return v;
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => k !== 'updated_at')
        .map(([k, val]) => [k, strip(val)]),
    );
  };
  return JSON.stringify(strip(res.body ?? res.text));
}

/**
 * Sends the same PUT twice and reads the resource after each: the two states
 * (and the two answers' statuses) must be the same.
 */
async function putTwice(
  ctx: CheckContext,
  api: BoundClient,
  clauses: string[],
  what: string,
  path: string,
  body: unknown,
  readPath: string,
): Promise<void> {
  const first = await api.put(path, { json: body, label: `${what}: the first PUT` });
  if (!first.ok) {
    ctx.note(`${what}: the first PUT answered ${first.describe(150)}; not repeated`);
    return;
  }
  const after1 = await api.get(readPath, { label: `${what}: the state after the first PUT` });
  const second = await api.put(path, { json: body, label: `${what}: the same PUT again` });
  const after2 = await api.get(readPath, { label: `${what}: the state after the second PUT` });
  ctx.expect(
    clauses,
    `${what}: the same PUT repeated`,
    x.that(second.status === first.status, `the status of the first PUT (${first.status})`, second.describe(150)),
    second,
  );
  ctx.expect(
    clauses,
    `${what}: the state after the repeated PUT`,
    x.that(state(after1) === state(after2), `the state after the first PUT: ${state(after1).slice(0, 200)}`, state(after2).slice(0, 200)),
    after2,
  );
}

export const check = defineCheck({
  id: 'openapi/manifest-put-idempotent',
  clauses: ['openapi.canonical', 'config.put.replaces-section', 'summary.overwrite.replaces', 'meetings.speaker-labels.accepts-map'],
  level: 'requirement',
  needs: ['token', 'meeting'],
  timeoutMs: 180_000,
  description:
    "For each PUT the target's manifest lists (a config section, a meeting's summary, its " +
    'speaker labels), sends one body twice and reads the resource after each: the same status ' +
    'and the same state (updated_at aside); graded under openapi.canonical where the manifest ' +
    "marks the operation x-service-idempotent, and under the resource's own clause.",
  requirement:
    'The manifest is the canonical route description and wins over prose, so the enforced ' +
    "behaviour (e.g. minimum scope per operation) must agree with the manifest's own " +
    'annotations.',
  async run(ctx) {
    const token = await ctx.token(['read', 'write']);
    const api = ctx.as(token);
    const doc = await fetchManifest(ctx, token);
    if (doc === null) return ctx.skip('GET /openapi.json did not answer a JSON document: there are no PUT operations to enumerate');
    const manifest = new ManifestResponses(doc);
    const idempotent = (template: string): boolean =>
      manifest.find('PUT', template.replace(/\{[^}]+\}/g, 'x'))?.operation['x-service-idempotent'] === true;
    const graded = (template: string, own: string): string[] => (idempotent(template) ? ['openapi.canonical', own] : [own]);
    const puts = manifest.ops.filter((o) => o.method === 'PUT').map((o) => o.template);
    const known = ['/v1/config/{section}', '/v1/meetings/{id}/summary', '/v1/meetings/{id}/speaker-labels'];
    for (const other of puts.filter((p) => !known.includes(p)))
      ctx.note(`PUT ${other}: listed by the manifest, not repeated here (no body known for it)`);

    if (puts.includes('/v1/config/{section}')) {
      const vad = await api.get('/v1/config/vad');
      const config = (vad.body as { config?: unknown } | undefined)?.config;
      if (vad.status !== 200 || config === undefined)
        ctx.note(`GET /v1/config/vad answered ${vad.describe(120)}: the config PUT was not repeated`);
      else
        await putTwice(
          ctx,
          api,
          graded('/v1/config/{section}', 'config.put.replaces-section'),
          'PUT /v1/config/vad with its current section',
          '/v1/config/vad',
          config,
          '/v1/config/vad',
        );
    }
    const needsMeeting = puts.some((p) => p.startsWith('/v1/meetings/{id}/'));
    if (!needsMeeting) return;
    const m = await ctx.fixtures.meeting();
    if (puts.includes('/v1/meetings/{id}/summary')) {
      const text = `Repeated overwrite ${ctx.fixtures.word(8)}.`;
      await putTwice(
        ctx,
        api,
        graded('/v1/meetings/{id}/summary', 'summary.overwrite.replaces'),
        'PUT …/summary {text}',
        `/v1/meetings/${m.id}/summary`,
        { text },
        `/v1/meetings/${m.id}/summary`,
      );
    }
    if (puts.includes('/v1/meetings/{id}/speaker-labels')) {
      // The meeting's own speaker keys, as its transcript names them.
      const t = await api.get(`/v1/meetings/${m.id}/transcript`);
      const segments = (t.body as { segments?: Array<{ speaker?: unknown }> } | undefined)?.segments ?? [];
      const keys = [...new Set(segments.map((s) => s.speaker).filter((s): s is string => typeof s === 'string' && s.length > 0))];
      if (keys.length === 0) ctx.note(`the transcript names no speakers (${t.describe(120)}): the speaker-labels PUT was not repeated`);
      else {
        const labels = Object.fromEntries(keys.map((k, i) => [k, `Person ${i + 1} ${ctx.fixtures.word(5)}`]));
        await putTwice(
          ctx,
          api,
          graded('/v1/meetings/{id}/speaker-labels', 'meetings.speaker-labels.accepts-map'),
          'PUT …/speaker-labels {labels}',
          `/v1/meetings/${m.id}/speaker-labels`,
          { labels },
          `/v1/meetings/${m.id}/transcript`,
        );
      }
    }
  },
});
