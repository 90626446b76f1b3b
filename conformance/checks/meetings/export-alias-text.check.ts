import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'meetings/export-alias-text',
  clauses: ['meetings.export.alias-text'],
  level: 'requirement',
  touches: 'own',
  needs: ['token', 'meeting'],
  description: 'GET …/export?format=text answers what format=txt answers: same status, Content-Type and document.',
  requirement: 'format=text is accepted as an alias of txt.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    const m = await ctx.fixtures.meetingToRead();
    const canonical = await api.get(`/v1/meetings/${m.id}/export`, { query: { format: 'txt' } });
    const alias = await api.get(`/v1/meetings/${m.id}/export`, { query: { format: 'text' } });
    ctx.require('meetings.export.alias-text', 'GET …/export?format=text', x.status(alias, 200), alias);
    ctx.expect(
      'meetings.export.alias-text',
      'format=text against format=txt',
      x.equal(
        { status: alias.status, type: alias.mediaType },
        { status: canonical.status, type: canonical.mediaType },
        'status and media type',
      ),
      alias,
    );
    const firstDiff = x.firstDifference(alias.text, canonical.text);
    ctx.expect(
      'meetings.export.alias-text',
      'the document of format=text against format=txt',
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
