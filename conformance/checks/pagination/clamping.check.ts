import fc from 'fast-check';
import { defineCheck } from '../../harness/check.ts';
import type { BoundClient } from '../../harness/context-types.ts';
import { importTitledMeetings } from '../../harness/api-fixtures.ts';
import * as x from '../../harness/expect.ts';

const MAX = 200;
const SEEDED = 203;

type Kind = 'meetings' | 'search';

function idsOf(kind: Kind, body: unknown): unknown[] {
  const list = (body as Record<string, Array<Record<string, unknown>>> | undefined)?.[kind === 'meetings' ? 'meetings' : 'results'] ?? [];
  return list.map((m) => (kind === 'meetings' ? m.id : m.meeting_id));
}

async function everything(api: BoundClient, kind: Kind, word: string): Promise<unknown[]> {
  const out: unknown[] = [];
  for (let offset = 0; offset < 5000; offset += MAX) {
    const res = await api.get(kind === 'meetings' ? '/v1/meetings' : '/v1/search', {
      query: { ...(kind === 'search' ? { q: word } : {}), limit: MAX, offset },
      label: `the whole ${kind} sequence`,
    });
    const page = idsOf(kind, res.body);
    out.push(...page);
    if (page.length < MAX) break;
  }
  return out;
}

export function clamp(limit: number): number {
  return Math.min(MAX, Math.max(1, limit));
}

export const check = defineCheck({
  id: 'pagination/clamping',
  clauses: ['pagination.limit.clamp-max-200', 'pagination.limit.clamp-min-1', 'pagination.offset.skips'],
  level: 'requirement',
  needs: ['token', 'meeting'],
  description:
    'With 203 meetings matching a word, a property over limit (negative, 0, 1..5, 195..205, ' +
    '1000, 10^6) × offset (0..210) × route (meetings, search): the answer is 200 and holds ' +
    'exactly whole[offset : offset + clamp(limit, 1, 200)]; the meetings list reports the ' +
    'clamped limit. Without the Control API the meetings are imports of silence titled with the ' +
    'word.',
  requirement: 'A limit above 200 is clamped to 200 instead of being rejected.',
  timeoutMs: 300_000,
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    const word = ctx.fixtures.word();
    if (ctx.has('meetings'))
      await ctx.fixtures.many(SEEDED, (i) => ({
        title: `Retro ${i} ${word}`,
        segments: [{ speaker: 'S1', start: 0, end: 1, text: 'Short.' }],
        summary: null,
      }));
    else
      await importTitledMeetings(
        ctx,
        Array.from({ length: SEEDED }, (_, i) => `Retro ${i} ${word}`),
      );
    const whole: Record<Kind, unknown[]> = {
      meetings: await everything(api, 'meetings', word),
      search: await everything(api, 'search', word),
    };
    ctx.require(
      'pagination.offset.skips',
      'the whole meetings sequence (pages of 200)',
      x.that(whole.meetings.length >= SEEDED, `at least the ${SEEDED} seeded meetings`, `${whole.meetings.length} meetings`),
    );
    if (whole.search.length < SEEDED)
      ctx.note(
        `the search for a word in ${SEEDED} titles found ${whole.search.length} (results may be capped); the search part pages through those`,
      );
    const limits = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.integer({ min: 195, max: 205 }), fc.constantFrom(1000, 1_000_000));
    await ctx.property<{ kind: Kind; limit: number; offset: number }>(
      'limit × offset',
      fc.record({
        kind: fc.constantFrom('meetings' as Kind, 'search' as Kind),
        limit: limits,
        offset: fc.integer({ min: 0, max: SEEDED + 7 }),
      }),
      async ({ kind, limit, offset }) => {
        const res = await api.get(kind === 'meetings' ? '/v1/meetings' : '/v1/search', {
          query: { ...(kind === 'search' ? { q: word } : {}), limit, offset },
        });
        const clause =
          limit > MAX ? 'pagination.limit.clamp-max-200' : limit < 1 ? 'pagination.limit.clamp-min-1' : 'pagination.offset.skips';
        const what = `GET /v1/${kind === 'meetings' ? 'meetings' : `search?q=${word}&`}${kind === 'meetings' ? '?' : ''}limit=${limit}&offset=${offset}`;
        ctx.expect(clause, what, x.status(res, 200), res);
        const expected = whole[kind].slice(offset, offset + clamp(limit));
        ctx.expect(clause, `${what}: the items`, x.equal(idsOf(kind, res.body), expected, `ids (${expected.length} expected)`), res);
        if (kind === 'meetings') {
          const b = res.body as { limit?: unknown; offset?: unknown };
          ctx.expect(clause, `${what}: the limit the answer reports`, x.equal(b.limit, clamp(limit), 'limit'), res);
          ctx.expect('pagination.offset.skips', `${what}: the offset the answer reports`, x.equal(b.offset, offset, 'offset'), res);
        }
      },
      {
        examples: [
          { kind: 'meetings', limit: 1000, offset: 0 },
          { kind: 'meetings', limit: 0, offset: 0 },
          { kind: 'meetings', limit: -1, offset: 3 },
          { kind: 'search', limit: 201, offset: 0 },
          { kind: 'search', limit: 0, offset: 5 },
          { kind: 'meetings', limit: 7, offset: SEEDED - 3 },
        ],
      },
    );
  },
});
