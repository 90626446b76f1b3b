import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'meetings/export-alias-markdown',
  clauses: ['meetings.export.alias-markdown'],
  level: 'requirement',
  touches: 'own',
  needs: ['token', 'meeting'],
  description: 'GET …/export?format=markdown answers what format=md answers: same status, Content-Type and document.',
  requirement: 'format=markdown is accepted as an alias of md.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    const m = await ctx.fixtures.meetingToRead();
    const canonical = await api.get(`/v1/meetings/${m.id}/export`, { query: { format: 'md' } });
    const alias = await api.get(`/v1/meetings/${m.id}/export`, { query: { format: 'markdown' } });
    ctx.require('meetings.export.alias-markdown', 'GET …/export?format=markdown', x.status(alias, 200), alias);
    ctx.expect(
      'meetings.export.alias-markdown',
      'format=markdown against format=md',
      x.equal(
        { status: alias.status, type: alias.mediaType },
        { status: canonical.status, type: canonical.mediaType },
        'status and media type',
      ),
      alias,
    );
    const firstDiff = x.firstDifference(alias.text, canonical.text);
    ctx.expect(
      'meetings.export.alias-markdown',
      'the document of format=markdown against format=md',
      x.that(
        alias.text === canonical.text,
        'the same document',
        firstDiff < 0
          ? `lengths ${alias.text.length} and ${canonical.text.length}`
          : `differs at character ${firstDiff}: ${JSON.stringify(alias.text.slice(firstDiff, firstDiff + 40))} vs ${JSON.stringify(canonical.text.slice(firstDiff, firstDiff + 40))}`,
      ),
      alias,
    );
  },
});
