import fc from 'fast-check';
import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'pairing/request-body-required',
  clauses: ['pairing.request.body-required'],
  level: 'requirement',
  needs: [],
  description: 'A property over pairing bodies missing client_name or scopes (or both, or no body): each is refused with a 4xx envelope.',
  requirement: 'A pairing request needs client_name and scopes, and a body missing either is refused.',
  async run(ctx) {
    const body = fc
      .record(
        {
          client_name: fc.constantFrom('Phone', 'Laptop'),
          scopes: fc.constantFrom(['read'], ['read', 'record']),
          note: fc.constant('extra'),
        },
        { requiredKeys: [] },
      )
      .filter((b) => !('client_name' in b && 'scopes' in b));
    await ctx.property(
      'incomplete pairing bodies',
      fc.option(body, { nil: undefined }),
      async (b) => {
        const res = await ctx.api.post('/v1/pair/request', b === undefined ? {} : { json: b });
        ctx.expect(
          'pairing.request.body-required',
          `POST /v1/pair/request ${b === undefined ? 'without a body' : JSON.stringify(b)}`,
          x.refused(res, 422),
          res,
        );
      },
      { runs: ctx.runs(0.3), examples: [{}, { client_name: 'Phone' }, { scopes: ['read'] }] },
    );
  },
});
