import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

const DTO = { id: 'any', title: 'string', created_at: 'timestamp', updated_at: 'timestamp' } as const;

export const check = defineCheck({
  id: 'meetings/dto-fields',
  clauses: ['meetings.dto.fields'],
  level: 'requirement',
  needs: ['token', 'meeting'],
  description:
    'A seeded meeting, in the list and from GET /v1/meetings/{id}, has id, title, created_at ' +
    'and updated_at (timestamps), with its id and title.',
  requirement: 'Every MeetingDto, in the list and from GET /v1/meetings/{id}, has id, title, created_at and updated_at.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    const m = await ctx.fixtures.meetingToRead({ created_at: '2026-03-02T10:15:00Z' });
    const one = await api.get(`/v1/meetings/${m.id}`);
    ctx.require('meetings.dto.fields', `GET /v1/meetings/${m.id}`, x.all(x.status(one, 200), x.json(one)), one);
    ctx.expect('meetings.dto.fields', 'the MeetingDto from GET /v1/meetings/{id}', x.fields(one.body, DTO, 'MeetingDto'), one);
    const b = one.body as { id?: unknown; title?: unknown; created_at?: unknown };
    ctx.expect(
      'meetings.dto.fields',
      'id and title of the seeded meeting',
      x.equal({ id: b.id, title: b.title }, { id: m.id, title: m.seed.title }, 'MeetingDto'),
      one,
    );
    // Only a seeded meeting has a created_at of the suite's choosing (one made by import is created now).
    if (ctx.has('meetings') && typeof b.created_at === 'string' && Date.parse(b.created_at) !== Date.parse('2026-03-02T10:15:00Z'))
      ctx.note(`created_at ${b.created_at} differs from the seeded 2026-03-02T10:15:00Z`);
    const list = await api.get('/v1/meetings', { query: { limit: 200 } });
    const items = (list.body as { meetings?: unknown[] } | undefined)?.meetings ?? [];
    items
      .slice(0, 20)
      .forEach((item, i) =>
        ctx.expect('meetings.dto.fields', `meetings[${i}] of GET /v1/meetings`, x.fields(item, DTO, `meetings[${i}]`), list),
      );
    ctx.expect(
      'meetings.dto.fields',
      'the seeded meeting in GET /v1/meetings',
      x.that(
        items.some((i) => (i as { id?: unknown }).id === m.id),
        `an item with id ${m.id}`,
        `${items.length} items`,
      ),
      list,
    );
  },
});
