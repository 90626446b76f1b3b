import fc from 'fast-check';
import { plainText } from '../../harness/arbitraries.ts';
import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'meetings/speaker-labels-accepts-map',
  clauses: ['meetings.speaker-labels.accepts-map'],
  level: 'requirement',
  touches: 'own',
  needs: ['token', 'meeting'],
  description:
    'A property over label maps of the meeting’s speaker keys (S1, S2) to display names: PUT ' +
    '/v1/meetings/{id}/speaker-labels {labels} answers 2xx. Whether the transcript then shows ' +
    'the names is recorded. Without the Control API the meeting is an import of the shipped ' +
    'speech and the keys are the speaker values its transcript shows (SKIPPED when it shows ' +
    'none).',
  requirement:
    'PUT /v1/meetings/{id}/speaker-labels with labels, an object mapping speaker cluster keys ' +
    "to display names, updates the meeting's speaker labels.",
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const m = await ctx.fixtures.meeting();
    // A seeded meeting's speakers are S1 and S2; an imported one's are whatever its transcript shows.
    let keys = ['S1', 'S2'];
    if (!ctx.has('meetings')) {
      const t = await api.get(`/v1/meetings/${m.id}/transcript`, { label: 'the speaker keys of the imported meeting' });
      const segs = (t.body as { segments?: Array<{ speaker?: unknown }> } | undefined)?.segments ?? [];
      keys = [...new Set(segs.map((g) => g.speaker).filter((k): k is string => typeof k === 'string' && k !== ''))].slice(0, 2);
      ctx.premise(
        'speaker keys in the imported meeting’s transcript (segments[].speaker)',
        x.that(keys.length > 0, 'at least one speaker key', t.describe(160)),
        t,
      );
    }
    const [first, second] = [keys[0]!, keys[1]];
    const shape: Record<string, fc.Arbitrary<string>> = {
      [first]: plainText({ maxLength: 40 }),
      ...(second === undefined ? {} : { [second]: plainText({ maxLength: 40 }) }),
    };
    let shown: boolean | null = null;
    await ctx.property(
      'label maps',
      fc.record(shape, { requiredKeys: [first] }),
      async (labels: Record<string, string>) => {
        const res = await api.put(`/v1/meetings/${m.id}/speaker-labels`, { json: { labels } });
        ctx.expect(
          'meetings.speaker-labels.accepts-map',
          `PUT /v1/meetings/{id}/speaker-labels ${JSON.stringify({ labels })}`,
          x.success(res),
          res,
        );
        const t = await api.get(`/v1/meetings/${m.id}/transcript`);
        shown = x.containsString(t.body, labels[first]!);
      },
      {
        runs: ctx.runs(0.4),
        examples: [{ [first]: 'Alice Moreau', ...(second === undefined ? {} : { [second]: 'Ben Okafor' }) }, { [first]: 'Zoë' }],
      },
    );
    ctx.note(`after a labels update, the transcript ${shown === true ? 'shows' : 'does not show'} the new display name`);
  },
});
