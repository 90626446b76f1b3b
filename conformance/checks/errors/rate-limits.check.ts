import { defineCheck } from '../../harness/check.ts';

export const check = defineCheck({
  id: 'errors/rate-limits',
  clauses: ['errors.rate-limits.gap'],
  level: 'gap',
  needs: [],
  order: 'last',
  description: 'Records any 429 and any rate-limit header (Retry-After, RateLimit-*, X-RateLimit-*) the target sent during the run.',
  requirement: 'Rate limits other than the import budget are not shown and are implementation-defined.',
  async run(ctx) {
    const headers = new Set<string>();
    let limited = 0;
    for (const e of ctx.runLog) {
      if (e.response === undefined) continue;
      if (e.response.status === 429) limited += 1;
      for (const h of Object.keys(e.response.headers)) if (/^(retry-after|ratelimit|x-ratelimit)/i.test(h)) headers.add(h);
    }
    ctx.observe(
      'errors.rate-limits.gap',
      'answers of the run',
      `${ctx.runLog.length} requests, ${limited} answered 429; rate-limit headers seen: ${[...headers].join(', ') || 'none'}`,
    );
  },
});
