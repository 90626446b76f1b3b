import { plainText } from '../../harness/arbitraries.ts';
import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'meetings/rename-applies',
  clauses: ['meetings.rename.applies'],
  level: 'requirement',
  needs: ['token', 'meeting'],
  description:
    'A property over titles (any script, NFC, no control characters): PATCH /v1/meetings/{id} ' +
    '{title} answers 2xx, and GET /v1/meetings/{id} and the list then show exactly that title.',
  requirement: 'PATCH /v1/meetings/{id} with {title} renames the meeting, and later reads return the new title.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const m = await ctx.fixtures.meeting();
    await ctx.property(
      'titles',
      plainText({ maxLength: 80 }),
      async (title) => {
        const patch = await api.patch(`/v1/meetings/${m.id}`, { json: { title } });
        ctx.expect('meetings.rename.applies', `PATCH /v1/meetings/{id} {title: ${JSON.stringify(title)}}`, x.success(patch), patch);
        const get = await api.get(`/v1/meetings/${m.id}`);
        ctx.expect(
          'meetings.rename.applies',
          'GET /v1/meetings/{id} after the rename',
          x.equal((get.body as { title?: unknown } | undefined)?.title, title, 'title'),
          get,
        );
      },
      { examples: ['Quarterly planning', 'Réunion d’équipe — Q3', '週次定例会議', 'Sync 🚀 launch'] },
    );
    const list = await api.get('/v1/meetings', { query: { limit: 200 } });
    const get = await api.get(`/v1/meetings/${m.id}`);
    const item = ((list.body as { meetings?: Array<{ id?: unknown; title?: unknown }> } | undefined)?.meetings ?? []).find(
      (i) => i.id === m.id,
    );
    ctx.expect(
      'meetings.rename.applies',
      'the renamed meeting in GET /v1/meetings',
      x.equal(item?.title, (get.body as { title?: unknown }).title, 'title in the list'),
      list,
    );
  },
});
