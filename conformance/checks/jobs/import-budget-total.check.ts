import { defineCheck } from '../../harness/check.ts';

export const check = defineCheck({
  id: 'jobs/import-budget-total',
  clauses: ['jobs.import.budget.total-20gb'],
  level: 'requirement',
  needs: ['token'],
  description:
    'The 20 GB total cannot bind through HTTP: at most 3 imports are in flight and each is at ' +
    'most 2 GB (6 GB in all), so the check is SKIPPED with that reason unless a target admits ' +
    'more.',
  requirement:
    'The import budget admits at most 20 GB in total across in-flight imports, beyond which new imports get 429 import_budget_full.',
  async run(ctx) {
    ctx.skip(
      'unreachable through HTTP: 3 concurrent imports × the 2 GB per-file cap = 6 GB < 20 GB ' +
        '(jobs/import-budget and jobs/import-size-cap check the binding limits)',
    );
  },
});
