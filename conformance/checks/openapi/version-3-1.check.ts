import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

interface ValidatorModule {
  Validator: new () => { validate(doc: Record<string, unknown>): Promise<{ valid: boolean; errors?: unknown }> };
}

export const check = defineCheck({
  id: 'openapi/version-3-1',
  clauses: ['openapi.version-3-1'],
  level: 'requirement',
  touches: 'own',
  needs: ['token'],
  description:
    'GET /openapi.json answers 200 with a JSON document whose openapi field is 3.1.x and that ' +
    'validates against the OpenAPI 3.1 schema.',
  requirement: "GET /openapi.json returns the running service's manifest as an OpenAPI 3.1 document.",
  async run(ctx) {
    const res = await ctx.as(await ctx.token(['read'])).get('/openapi.json');
    ctx.require('openapi.version-3-1', 'GET /openapi.json with a read token', x.all(x.status(res, 200), x.json(res)), res);
    const doc = res.body as { openapi?: unknown; info?: unknown; paths?: unknown };
    ctx.expect(
      'openapi.version-3-1',
      'the openapi field',
      x.that(typeof doc.openapi === 'string' && /^3\.1\.\d+$/.test(doc.openapi), 'openapi: "3.1.x"', `openapi = ${x.show(doc.openapi)}`),
      res,
    );
    let validator: ValidatorModule | null = null;
    try {
      validator = await import('@seriousme/openapi-schema-validator');
    } catch {
      ctx.note('@seriousme/openapi-schema-validator is not installed: the document was not validated against the OpenAPI 3.1 schema');
    }
    if (validator !== null && typeof doc.openapi === 'string' && doc.openapi.startsWith('3.1')) {
      const result = await new validator.Validator().validate(doc);
      const errors = Array.isArray(result.errors)
        ? result.errors
            .slice(0, 5)
            .map((e: { instancePath?: string; message?: string }) => `${e.instancePath ?? ''} ${e.message ?? ''}`.trim())
        : [JSON.stringify(result.errors ?? '')];
      ctx.expect(
        'openapi.version-3-1',
        'the document against the OpenAPI 3.1 schema',
        x.that(result.valid, 'a valid OpenAPI 3.1 document', result.valid ? 'valid' : `invalid: ${errors.join('; ')}`),
        res,
      );
    }
  },
});
