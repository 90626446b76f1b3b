import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'health/body-fields',
  clauses: ['health.body.fields'],
  level: 'requirement',
  touches: 'own',
  needs: [],
  description: 'The health body holds status, version, webhooks.events_dropped, webhooks.deliveries_failed and license.fail_open_total.',
  requirement: 'The health body contains status, version, webhooks {events_dropped, deliveries_failed} and license {fail_open_total}.',
  async run(ctx) {
    const res = await ctx.api.get('/health');
    ctx.require('health.body.fields', 'GET /health', x.all(x.status(res, 200), x.json(res)), res);
    const body = res.body as Record<string, unknown>;
    ctx.expect(
      'health.body.fields',
      'health body',
      x.fields(body, { status: 'any', version: 'any', webhooks: 'object', license: 'object' }, 'health'),
      res,
    );
    ctx.expect(
      'health.body.fields',
      'health.webhooks',
      x.fields(body.webhooks, { events_dropped: 'any', deliveries_failed: 'any' }, 'webhooks'),
      res,
    );
    ctx.expect('health.body.fields', 'health.license', x.fields(body.license, { fail_open_total: 'any' }, 'license'), res);
  },
});
