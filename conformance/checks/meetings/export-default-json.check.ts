import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'meetings/export-default-json',
  clauses: ['meetings.export.default-json'],
  level: 'requirement',
  touches: 'own',
  needs: ['token', 'meeting'],
  description:
    'GET /v1/meetings/{id}/export without format answers the JSON export (meeting and transcript), the same document as format=json.',
  requirement: 'GET /v1/meetings/{id}/export without format returns the JSON ExportDto, json being the default format.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    const m = await ctx.fixtures.meetingToRead();
    const plain = await api.get(`/v1/meetings/${m.id}/export`);
    ctx.require(
      'meetings.export.default-json',
      'GET /v1/meetings/{id}/export',
      x.all(x.status(plain, 200), x.json(plain), x.fields(plain.body, { meeting: 'object', transcript: 'any' }, 'ExportDto')),
      plain,
    );
    const json = await api.get(`/v1/meetings/${m.id}/export`, { query: { format: 'json' } });
    ctx.expect('meetings.export.default-json', 'GET …/export?format=json', x.all(x.status(json, 200), x.json(json)), json);
    const keys = (v: unknown): string[] => Object.keys(v ?? {}).sort();
    ctx.expect(
      'meetings.export.default-json',
      'the default export against format=json',
      x.equal(keys(plain.body), keys(json.body), 'top-level keys'),
      plain,
    );
    ctx.expect(
      'meetings.export.default-json',
      'the default export against format=json',
      x.equal((plain.body as { meeting?: unknown }).meeting, (json.body as { meeting?: unknown }).meeting, 'meeting'),
      plain,
    );
  },
});
