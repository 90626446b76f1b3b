import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import type { StalledUpload } from '../../harness/jobs.ts';
import { answerWithin, errorCodeOf, stalledImport } from '../../harness/jobs.ts';

export const check = defineCheck({
  id: 'jobs/import-budget',
  clauses: [
    'jobs.import.budget.concurrent-3',
    'jobs.import.budget-full.429',
    'jobs.import.budget.shared',
    'errors.code.too_many_requests.429',
  ],
  level: 'requirement',
  needs: ['tokens'],
  description:
    'Holds 3 imports in flight (each announces 1 MB and sends 1 KB), one per caller; a 4th ' +
    'import, by a fourth caller, must get 429 import_budget_full with a Retry-After header at ' +
    'once; after the 3 are dropped an import is accepted again.',
  requirement: 'At most 3 imports may be in flight at once, and a further concurrent import gets 429 import_budget_full.',
  async run(ctx) {
    const callers = await Promise.all(
      [0, 1, 2, 3].map((i) => ctx.mint({ scopes: ['read', 'write'], name: `conformance budget caller ${i}` })),
    );
    const held: StalledUpload[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const up = stalledImport(
          ctx,
          callers[i]!.token,
          1_000_000,
          1024,
          `part${i}.wav`,
          `in-flight import ${i + 1} of 3 (caller ${i + 1})`,
        );
        held.push(up);
        const early = await answerWithin(up, 400);
        if (early !== null) {
          ctx.expect(
            'jobs.import.budget.concurrent-3',
            `in-flight import ${i + 1} of 3`,
            x.that(
              false,
              'the upload stays in flight (no answer before its body is complete)',
              `${early.status} ${early.body.slice(0, 200)}`,
            ),
            up.exchange,
          );
          return;
        }
      }
      const fourth = stalledImport(ctx, callers[3]!.token, 1_000_000, 1024, 'part4.wav', 'a 4th concurrent import, by another caller');
      held.push(fourth);
      const a = await answerWithin(fourth, 5000);
      const code = a === null ? undefined : errorCodeOf(a.body);
      const actual =
        a === null
          ? 'no answer within 5 s (the upload was taken in)'
          : `${a.status} ${a.body.slice(0, 200)}${a.headers['retry-after'] === undefined ? ' (no Retry-After)' : ` Retry-After: ${a.headers['retry-after']}`}`;
      ctx.expect(
        ['jobs.import.budget.concurrent-3', 'jobs.import.budget.shared'],
        '4th concurrent import while 3 are in flight',
        x.that(a !== null && a.status === 429 && code === 'import_budget_full', '429 {"error": {"code": "import_budget_full"}}', actual),
        fourth.exchange,
      );
      if (a !== null && a.status === 429) {
        ctx.expect(
          ['jobs.import.budget-full.429', 'errors.code.too_many_requests.429'],
          '429 of the full budget',
          x.that(
            code === 'import_budget_full' && a.headers['retry-after'] !== undefined && a.headers['retry-after'] !== '',
            '429 import_budget_full with a Retry-After header',
            actual,
          ),
          fourth.exchange,
        );
      } else {
        ctx.expect(
          ['jobs.import.budget-full.429', 'errors.code.too_many_requests.429'],
          'an import while the budget is full',
          x.that(false, '429 import_budget_full with a Retry-After header', actual),
          fourth.exchange,
        );
      }
    } finally {
      for (const u of held) u.close();
    }
    // The budget frees when the uploads end.
    await ctx.sleep(300);
    const after = stalledImport(ctx, callers[0]!.token, 1_000_000, 1024, 'after.wav', 'an import after the 3 in-flight ones were dropped');
    try {
      const a = await answerWithin(after, 1000);
      ctx.expect(
        'jobs.import.budget.concurrent-3',
        'an import once the 3 in-flight uploads were dropped',
        x.that(
          a === null || a.status !== 429,
          'not 429 (the budget is free again)',
          a === null ? 'in flight' : `${a.status} ${a.body.slice(0, 150)}`,
        ),
        after.exchange,
      );
    } finally {
      after.close();
    }
  },
});
