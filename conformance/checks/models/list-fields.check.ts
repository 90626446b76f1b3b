import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'models/list-fields',
  clauses: ['models.list.fields'],
  level: 'requirement',
  touches: 'own',
  needs: ['token'],
  description:
    'GET /v1/models answers 200 {models: [...]} whose items carry name, size_mb, accuracy, speed, status, description and is_custom.',
  requirement:
    'GET /v1/models returns models, an array whose items carry name, size_mb, accuracy, speed, status, description and is_custom.',
  async run(ctx) {
    const res = await ctx.as(await ctx.token(['read'])).get('/v1/models');
    ctx.require(
      'models.list.fields',
      'GET /v1/models',
      x.all(x.status(res, 200), x.json(res), x.fields(res.body, { models: 'array' }, 'model list')),
      res,
    );
    const models = (res.body as { models: unknown[] }).models;
    models.forEach((m, i) =>
      ctx.expect(
        'models.list.fields',
        `models[${i}]`,
        x.fields(
          m,
          { name: 'any', size_mb: 'any', accuracy: 'any', speed: 'any', status: 'any', description: 'any', is_custom: 'any' },
          `models[${i}]`,
        ),
        res,
      ),
    );
    if (models.length === 0) ctx.note('the target lists no model: item fields were not seen');
  },
});
