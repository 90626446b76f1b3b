import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'health/counters-integer',
  clauses: ['health.counters.integer'],
  level: 'requirement',
  touches: 'own',
  needs: [],
  description: 'events_dropped, deliveries_failed and fail_open_total are JSON integers.',
  requirement: 'The counters events_dropped, deliveries_failed and fail_open_total are integers.',
  async run(ctx) {
    const res = await ctx.api.get('/health');
    ctx.require('health.counters.integer', 'GET /health', x.all(x.status(res, 200), x.json(res)), res);
    const body = res.body as { webhooks?: Record<string, unknown>; license?: Record<string, unknown> };
    const counters: Array<[string, unknown]> = [
      ['webhooks.events_dropped', body.webhooks?.events_dropped],
      ['webhooks.deliveries_failed', body.webhooks?.deliveries_failed],
      ['license.fail_open_total', body.license?.fail_open_total],
    ];
    for (const [name, value] of counters) {
      ctx.expect(
        'health.counters.integer',
        `health ${name}`,
        x.that(
          typeof value === 'number' && Number.isInteger(value),
          `${name}: an integer`,
          `${name} = ${x.show(value)} (${x.typeName(value)})`,
        ),
        res,
      );
      if (typeof value === 'number' && value < 0) ctx.note(`${name} is negative (${value}); a counter is expected to start at 0`);
    }
  },
});
