import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'meetings/transcript-segment-fields',
  clauses: ['meetings.transcript.segment-fields.gap'],
  level: 'gap',
  touches: 'own',
  needs: ['token', 'meeting'],
  description:
    'Records the field names and types of transcript segments (with and without word timings) and the other fields of the transcript.',
  requirement: 'The exact field names inside a transcript segment are not shown and are implementation-defined.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    const m = await ctx.fixtures.meetingToRead();
    const res = await api.get(`/v1/meetings/${m.id}/transcript`);
    const body = res.body as { segments?: Array<Record<string, unknown>> } | undefined;
    const describe = (o: Record<string, unknown> | undefined): string =>
      o === undefined
        ? 'none'
        : Object.entries(o)
            .map(([k, v]) => `${k}: ${x.typeName(v)}`)
            .join(', ');
    ctx.observe('meetings.transcript.segment-fields.gap', 'transcript keys', describe(body), res);
    ctx.observe('meetings.transcript.segment-fields.gap', 'segment with word timings', describe(body?.segments?.[0]), res);
    ctx.observe('meetings.transcript.segment-fields.gap', 'segment without word timings', describe(body?.segments?.[1]), res);
    const words = Object.values(body?.segments?.[0] ?? {}).find((v) => Array.isArray(v) && v.length === 3) as
      Array<Record<string, unknown>> | undefined;
    ctx.observe('meetings.transcript.segment-fields.gap', 'a word timing', describe(words?.[0]), res);
  },
});
