import { defineCheck } from '../../harness/check.ts';
import { publicWebhookUrl } from '../../harness/webhooks.ts';

const CANDIDATES = [
  'job.completed',
  'job.failed',
  'job.cancelled',
  'job.paused',
  'job.resumed',
  'job.created',
  'job.started',
  'job.progress',
  'recording.started',
  'recording.stopped',
  'recording.paused',
  'recording.resumed',
  'recording.failed',
  'summary.completed',
  'summary.failed',
  'transcript.updated',
  'webhook.test',
  'speaker.labels.updated',
  'config.updated',
  'import.completed',
];

export const check = defineCheck({
  id: 'webhooks/gaps',
  clauses: ['webhooks.events.catalog.gap'],
  level: 'gap',
  touches: 'own',
  needs: ['token'],
  description: 'Records which of twenty candidate event names a token with every scope can subscribe to.',
  requirement:
    'There are 17 subscribable event names, but only ten names are given and the full list, ' +
    'including which are dormant, is not shown.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'record', 'write']));
    const accepted: string[] = [];
    const refused: string[] = [];
    for (const e of CANDIDATES) {
      const r = await api.post('/v1/webhooks', { json: { url: publicWebhookUrl(ctx), events: [e] } });
      (r.status === 201 ? accepted : refused).push(`${e}${r.status === 201 ? '' : ` (${r.status})`}`);
    }
    ctx.observe('webhooks.events.catalog.gap', 'subscribable', accepted.join(', '));
    ctx.observe('webhooks.events.catalog.gap', 'refused', refused.join(', '));
    const doc = await api.get('/openapi.json');
    const names = [
      ...new Set(doc.text.match(/\b(job|recording|summary|transcript|webhook|meeting|import|speaker|config)\.[a-z_.]+\b/g) ?? []),
    ].sort();
    ctx.observe('webhooks.events.catalog.gap', 'event names mentioned in /openapi.json', names.join(', ') || 'none');
  },
});
