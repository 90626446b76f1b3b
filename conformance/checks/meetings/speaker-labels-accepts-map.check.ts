import fc from 'fast-check';
import { plainText } from '../../harness/arbitraries.ts';
import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'meetings/speaker-labels-accepts-map',
  clauses: ['meetings.speaker-labels.accepts-map'],
  level: 'requirement',
  touches: 'own',
  needs: ['tokens', 'meetings'],
  description: 'A property over label maps of the meeting’s speaker keys (S1, S2) to display names: PUT /v1/meetings/{id}/speaker-labels {labels} answers 2xx. Whether the transcript then shows the names is recorded.',
  requirement:
    'PUT /v1/meetings/{id}/speaker-labels with labels, an object mapping speaker cluster keys to display names, updates the meeting\'s speaker labels.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const m = await ctx.fixtures.meeting();
    let shown: boolean | null = null;
    await ctx.property(
      'label maps',
      fc.record({ S1: plainText({ maxLength: 40 }), S2: plainText({ maxLength: 40 }) }, { requiredKeys: ['S1'] }),
      async (labels) => {
        const res = await api.put(`/v1/meetings/${m.id}/speaker-labels`, { json: { labels } });
        ctx.expect('meetings.speaker-labels.accepts-map', `PUT /v1/meetings/{id}/speaker-labels ${JSON.stringify({ labels })}`, x.success(res), res);
        const t = await api.get(`/v1/meetings/${m.id}/transcript`);
        shown = x.containsString(t.body, labels.S1);
      },
      { runs: ctx.runs(0.4), examples: [{ S1: 'Alice Moreau', S2: 'Ben Okafor' }, { S1: 'Zoë' }] },
    );
    ctx.note(`after a labels update, the transcript ${shown === true ? 'shows' : 'does not show'} the new display name`);
  },
});
