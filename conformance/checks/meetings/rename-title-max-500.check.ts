import fc from 'fast-check';
import { simpleString } from '../../harness/arbitraries.ts';
import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

const MAX = 500;

export const check = defineCheck({
  id: 'meetings/rename-title-max-500',
  clauses: ['meetings.rename.title-max-500'],
  level: 'requirement',
  touches: 'own',
  needs: ['token', 'meeting'],
  description:
    'A property over titles of 1, 450..550, 1000 and 5000 characters (characters for which ' +
    'UTF-16 units, code points and graphemes agree): up to 500 is accepted and stored, longer ' +
    'is refused with a 4xx envelope and leaves the title as it was. How the target counts emoji ' +
    'is recorded.',
  requirement:
    'A rename title of at most 500 characters is accepted, while a longer one is refused with a ' +
    '4xx error and leaves the title unchanged.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const m = await ctx.fixtures.meeting();
    const title = async (): Promise<unknown> => ((await api.get(`/v1/meetings/${m.id}`)).body as { title?: unknown } | undefined)?.title;
    const lengths = fc.oneof(fc.constantFrom(1, 1000, 5000), fc.integer({ min: 450, max: 550 }), fc.integer({ min: 497, max: 503 }));
    await ctx.property(
      'title lengths',
      lengths.chain((n) => fc.noShrink(simpleString(n))),
      async (t) => {
        const before = await title();
        const res = await api.patch(`/v1/meetings/${m.id}`, { json: { title: t } });
        const what = `PATCH /v1/meetings/{id} with a ${t.length}-character title`;
        if (t.length <= MAX) {
          ctx.expect('meetings.rename.title-max-500', what, x.success(res), res);
          ctx.expect('meetings.rename.title-max-500', `${what}: the stored title`, x.equal(await title(), t, 'title'), res);
        } else {
          ctx.expect('meetings.rename.title-max-500', what, x.refused(res, 422), res);
          ctx.expect(
            'meetings.rename.title-max-500',
            `${what}: the title afterwards`,
            x.equal(await title(), before, 'title (unchanged)'),
            res,
          );
        }
      },
      { examples: ['a'.repeat(500), 'a'.repeat(501), '会'.repeat(500), 'é'.repeat(501)] },
    );
    // Counting is not specified for characters outside the BMP: record it.
    for (const [label, t] of [
      ['500 emoji (500 code points, 1000 UTF-16 units)', '🚀'.repeat(500)],
      ['300 emoji (300 code points, 600 UTF-16 units)', '🚀'.repeat(300)],
      ['400 family emoji (400 graphemes, 2800 code points)', '👨‍👩‍👧'.repeat(400)],
    ] as const) {
      const res = await api.patch(`/v1/meetings/${m.id}`, { json: { title: t } });
      ctx.note(`${label}: ${res.status}${res.errorCode === undefined ? '' : ` ${res.errorCode}`}`);
    }
  },
});
