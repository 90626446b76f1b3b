import { transcriptWord } from '../../harness/api-fixtures.ts';
import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'meetings/export-md',
  clauses: ['meetings.export.md'],
  level: 'requirement',
  touches: 'own',
  needs: ['token', 'meeting'],
  description:
    'GET …/export?format=md answers 200 with the rendered Markdown document itself (not a JSON ' +
    'object), holding the title and the transcript text.',
  requirement: 'format=md returns the rendered Markdown document itself rather than a JSON object.',
  async run(ctx) {
    const token = await ctx.token(['read']);
    const api = ctx.as(token);
    const m = await ctx.fixtures.meetingToRead();
    // A seeded meeting's text is known; for one made by import, a word its transcript shows.
    const spoken = ctx.has('meetings') ? null : await transcriptWord(ctx, token, m.id);
    const res = await api.get(`/v1/meetings/${m.id}/export`, { query: { format: 'md' } });
    ctx.require('meetings.export.md', 'GET …/export?format=md', x.status(res, 200), res);
    const isJsonObject = res.jsonError === undefined && typeof res.body === 'object' && res.body !== null;
    ctx.expect(
      'meetings.export.md',
      'the body of the md export',
      x.that(
        !isJsonObject && res.mediaType !== 'application/json',
        'a rendered document, not a JSON object',
        `${res.mediaType}: ${res.text.slice(0, 120)}`,
      ),
      res,
    );
    ctx.expect(
      'meetings.export.md',
      'the md export holds the meeting',
      x.that(
        res.text.includes(m.seed.title.split(' ').at(-1)!) &&
          (ctx.has('meetings') ? res.text.includes('Friday') : spoken === null || res.text.includes(spoken)),
        `the title and the transcript text${spoken === null ? '' : ` (${JSON.stringify(spoken)})`}`,
        res.text.slice(0, 200),
      ),
      res,
    );
    ctx.note(`Content-Type of the md export: ${res.headers.get('content-type') ?? '(none)'}`);
  },
});
