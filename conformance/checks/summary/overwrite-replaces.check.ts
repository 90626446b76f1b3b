import fc from 'fast-check';
import { plainText } from '../../harness/arbitraries.ts';
import { summaryTextOf } from '../../harness/api-fixtures.ts';
import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'summary/overwrite-replaces',
  clauses: ['summary.overwrite.replaces'],
  level: 'requirement',
  touches: 'own',
  needs: ['token', 'meeting'],
  description:
    'A property over summary texts (one line or several, any script): PUT ' +
    '/v1/meetings/{id}/summary {text} answers 2xx, and GET …/summary then holds the new text ' +
    'and not the previous one.',
  requirement: 'PUT /v1/meetings/{id}/summary with {text} replaces the stored summary by that text with no undo.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const m = await ctx.fixtures.meeting();
    // A meeting made by import: the previous text is the summary the target generated, as read now.
    let previous =
      m.seed.summary?.text ??
      summaryTextOf(((await api.get(`/v1/meetings/${m.id}/summary`)).body as { result?: unknown } | undefined)?.result) ??
      '';
    const marker = (): string => ctx.fixtures.word(12);
    await ctx.property(
      'summary texts',
      fc.array(plainText({ maxLength: 60 }), { minLength: 1, maxLength: 4 }).map((lines) => lines.join('\n')),
      async (body) => {
        const text = `${marker()} ${body}`;
        const put = await api.put(`/v1/meetings/${m.id}/summary`, { json: { text } });
        ctx.expect(
          'summary.overwrite.replaces',
          `PUT /v1/meetings/{id}/summary {text: ${JSON.stringify(text.slice(0, 60))}}`,
          x.success(put),
          put,
        );
        const get = await api.get(`/v1/meetings/${m.id}/summary`);
        const result = (get.body as { result?: unknown } | undefined)?.result;
        ctx.expect(
          'summary.overwrite.replaces',
          'GET …/summary after the overwrite',
          x.that(x.containsString(result, text), 'result holds the new text', x.show(result, 200)),
          get,
        );
        const oldMarker = previous.split(' ')[0]!;
        if (previous !== '')
          ctx.expect(
            'summary.overwrite.replaces',
            'GET …/summary after the overwrite: the previous text',
            x.that(
              !x.containsString(result, previous) || previous.includes(text),
              'the previous text is gone',
              `still holds ${JSON.stringify(oldMarker)}…`,
            ),
            get,
          );
        previous = text;
      },
      { runs: ctx.runs(0.4) },
    );
  },
});
