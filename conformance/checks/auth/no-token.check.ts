import fc from 'fast-check';
import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { lookalikeId } from '../../harness/probes.ts';
import { PROTECTED_OPERATIONS, fillPath } from '../../spec/operations.ts';

/** Authorization values that carry no bearer token. */
const NOT_BEARER = [undefined, '', 'Bearer', 'Basic Y29uZm9ybWFuY2U6c2VjcmV0', 'Token abc', 'Digest username="x"', 'bearer'] as const;

export const check = defineCheck({
  id: 'auth/no-token',
  clauses: ['auth.no-token.401', 'errors.code.unauthorized.401'],
  level: 'requirement',
  touches: 'own',
  needs: [],
  description:
    'Every operation but GET /health and the two pairing routes answers 401 unauthorized to a ' +
    'request without a bearer token: no Authorization header (each operation), and (a property) ' +
    'other schemes or an empty Bearer.',
  requirement:
    'A request without an Authorization: Bearer header to any route other than GET /health, ' +
    'POST /v1/pair/request and GET /v1/pair/{id} is refused with 401 unauthorized.',
  async run(ctx) {
    const id = lookalikeId('3f1c0b7e-3f7e-4b0e-9d55-0c1d2e3f4a5b');
    const params = { id, operation_id: id, section: 'vad' };
    for (const op of PROTECTED_OPERATIONS) {
      const res = await ctx.api.request(op.method, fillPath(op.path, params), {
        ...(op.method === 'GET' || op.method === 'DELETE' ? {} : { json: {} }),
        ...(op.stream === true ? { readBodyMs: 1500 } : {}),
      });
      ctx.expect(
        ['auth.no-token.401', 'errors.code.unauthorized.401'],
        `${op.method} ${op.path} without an Authorization header`,
        x.error(res, 401, 'unauthorized'),
        res,
      );
    }
    await ctx.property(
      'authorization without a bearer token',
      fc.record({ op: fc.constantFrom(...PROTECTED_OPERATIONS), authorization: fc.constantFrom(...NOT_BEARER) }),
      async ({ op, authorization }) => {
        const res = await ctx.api.request(op.method, fillPath(op.path, params), {
          ...(authorization === undefined ? {} : { authorization }),
          ...(op.method === 'GET' || op.method === 'DELETE' ? {} : { json: {} }),
          ...(op.stream === true ? { readBodyMs: 1500 } : {}),
        });
        ctx.expect(
          ['auth.no-token.401', 'errors.code.unauthorized.401'],
          `${op.method} ${op.path} with Authorization: ${authorization === undefined ? '(none)' : JSON.stringify(authorization)}`,
          x.error(res, 401, 'unauthorized'),
          res,
        );
      },
    );
  },
});
