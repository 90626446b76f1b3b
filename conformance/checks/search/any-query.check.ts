import fc from 'fast-check';
import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

/** Query text that search engines treat as syntax, and text from every script. */
const SYNTAX = [
  '"',
  '*',
  '(',
  ')',
  'NEAR',
  'AND',
  'OR',
  'NOT',
  '-',
  '+',
  ':',
  '^',
  '\\',
  "'",
  '%',
  '_',
  ';',
  '--',
  '/*',
  '{',
  '}',
  '[',
  ']',
  '~',
  '?',
  '@',
  '#',
  '&',
  '|',
  '<',
  '>',
];

export const check = defineCheck({
  id: 'search/any-query',
  clauses: ['search.results.fields'],
  level: 'requirement',
  needs: ['token'],
  description:
    'A property over non-blank q (words, query-language syntax such as quotes, NEAR, *, ' +
    'column:, SQL comment markers, and text in any script): every search answers 200 with ' +
    '{results: [...]}, never an error.',
  requirement:
    'The search response holds results, an array whose items carry meeting_id, title, ' +
    'match_context, timestamp and optionally audio_start_time.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    const q = fc
      .array(
        fc.oneof(
          fc.constantFrom(...SYNTAX),
          fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }),
          fc.constantFrom('text:', 'title:', 'morning', 'Zürich', '会議'),
        ),
        { minLength: 1, maxLength: 6 },
      )
      .map((parts) => parts.join(' '))
      .filter((s) => s.trim().length > 0 && s.length <= 200);
    await ctx.property(
      'search queries',
      q,
      async (text) => {
        const res = await api.get('/v1/search', { query: { q: text, limit: 5 } });
        ctx.expect(
          'search.results.fields',
          `GET /v1/search?q=${JSON.stringify(text)}`,
          x.all(x.status(res, 200), x.json(res), x.fields(res.body, { results: 'array' }, 'search response')),
          res,
        );
      },
      { examples: ['"', 'NEAR(a b)', 'text:hello', "'; DROP TABLE meetings; --", '*', 'a OR b', '😀'] },
    );
  },
});
