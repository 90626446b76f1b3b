import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { manifestOperations } from '../../harness/manifest.ts';

export const ANNOTATIONS = ['x-service-read-only', 'x-service-idempotent', 'x-service-destructive', 'x-service-required-scope'] as const;

export const check = defineCheck({
  id: 'openapi/annotations-four',
  clauses: ['openapi.annotations.four'],
  level: 'requirement',
  touches: 'own',
  needs: ['token'],
  description:
    'Every operation of /openapi.json carries x-service-read-only, x-service-idempotent, ' +
    'x-service-destructive and x-service-required-scope.',
  requirement:
    'Every operation in the manifest carries the four extensions x-service-read-only, ' +
    'x-service-idempotent, x-service-destructive and x-service-required-scope.',
  async run(ctx) {
    const res = await ctx.as(await ctx.token(['read'])).get('/openapi.json');
    ctx.require('openapi.annotations.four', 'GET /openapi.json', x.all(x.status(res, 200), x.json(res)), res);
    const ops = manifestOperations(res.body);
    ctx.require(
      'openapi.annotations.four',
      'operations in the manifest',
      x.that(ops.length > 0, 'at least one operation', '0 operations'),
      res,
    );
    const lacking = ops.filter((o) => ANNOTATIONS.some((a) => !(a in o.operation)));
    ctx.expect(
      'openapi.annotations.four',
      `the four x-service-* annotations on each of ${ops.length} operations`,
      x.that(
        lacking.length === 0,
        'all four on every operation',
        lacking.length === 0
          ? 'all present'
          : lacking
              .slice(0, 10)
              .map((o) => `${o.method} ${o.path} lacks ${ANNOTATIONS.filter((a) => !(a in o.operation)).join(', ')}`)
              .join('; ') + (lacking.length > 10 ? `; and ${lacking.length - 10} more` : ''),
      ),
      res,
    );
    const types = new Set(ops.flatMap((o) => ANNOTATIONS.map((a) => `${a}: ${x.typeName(o.operation[a])}`)));
    ctx.note(`annotation value types: ${[...types].sort().join(', ')}`);
  },
});
