import { defineCheck } from '../../harness/check.ts';
import { publicWebhookUrl } from '../../harness/webhooks.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'webhooks/recording-needs-record',
  clauses: ['webhooks.create.recording-needs-record'],
  level: 'requirement',
  touches: 'own',
  needs: ['tokens'],
  description:
    'Tokens holding read, write and delete but not record are refused when subscribing ' +
    'recording.started or recording.stopped (alone or with job.completed); a token with record ' +
    'is accepted (201).',
  requirement: 'Subscribing a webhook to any recording.* event requires the record scope.',
  async run(ctx) {
    const noRecord = ctx.as((await ctx.mint({ scopes: ['read', 'write', 'delete'] })).token);
    const withRecord = ctx.as((await ctx.mint({ scopes: ['record'] })).token);
    for (const events of [['recording.started'], ['recording.stopped'], ['job.completed', 'recording.started']]) {
      const r = await noRecord.post('/v1/webhooks', { json: { url: publicWebhookUrl(ctx), events } });
      ctx.expect(
        'webhooks.create.recording-needs-record',
        `POST /v1/webhooks events ${JSON.stringify(events)} without record`,
        x.refused(r, 403),
        r,
      );
      const ok = await withRecord.post('/v1/webhooks', { json: { url: publicWebhookUrl(ctx), events } });
      ctx.expect(
        'webhooks.create.recording-needs-record',
        `POST /v1/webhooks events ${JSON.stringify(events)} with record`,
        x.status(ok, 201),
        ok,
      );
    }
  },
});
