import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { answerWithin, errorCodeOf, stalledImport } from '../../harness/jobs.ts';

const CAP = 2_000_000_000;

export const check = defineCheck({
  id: 'jobs/import-budget-decoded',
  clauses: ['jobs.import.budget.decoded-4gb'],
  level: 'requirement',
  needs: ['token'],
  description:
    'Finds, with stalled .mp3 uploads (compressed audio decodes larger than its size), the ' +
    'largest size S the target takes in alone (its decoded estimate is then close to the 4 GB ' +
    'ceiling); holds one upload of S and starts another of S/8: together they pass the ceiling, ' +
    'so the second must get 429 import_budget_full. A lone file that can never fit may be ' +
    'refused with 413 or 429 (recorded). SKIPPED when no .mp3 below the 2 GB cap reaches the ' +
    'ceiling.',
  requirement: 'An import that would push the estimated decoded memory of in-flight imports above 4 GB gets 429 import_budget_full.',
  async run(ctx) {
    const token = await ctx.token(['read', 'write']);
    const probe = async (size: number): Promise<{ status: number; body: string } | null> => {
      const up = stalledImport(ctx, token, size, 512, 'probe.mp3', `probe: a lone .mp3 upload announcing ${size} bytes`);
      try {
        return await answerWithin(up, 400);
      } finally {
        up.close();
      }
    };
    const atCap = await probe(CAP);
    if (atCap === null)
      return ctx.skip(
        'a lone 2 GB .mp3 is taken in: the decoded estimate of one file under the size cap never ' +
          'reaches the 4 GB ceiling, so two files cannot be sized to pass it reliably',
      );
    ctx.note(`a lone 2 GB .mp3 was answered ${atCap.status} ${errorCodeOf(atCap.body) ?? ''}`);
    let lo = 1_000_000;
    let hi = CAP;
    if ((await probe(lo)) !== null)
      return ctx.skip('even a 1 MB .mp3 upload is answered before its body came: no in-flight upload to fill the budget');
    for (let i = 0; i < 11; i++) {
      const mid = Math.round(Math.sqrt(lo * hi));
      if ((await probe(mid)) === null) lo = mid;
      else hi = mid;
    }
    await ctx.sleep(200);
    const first = stalledImport(ctx, token, lo, 512, 'first.mp3', `an in-flight .mp3 of ${lo} bytes (the largest taken in alone)`);
    try {
      const early = await answerWithin(first, 400);
      if (early !== null) return ctx.skip(`the ${lo}-byte .mp3 taken in a moment ago was now answered ${early.status}`);
      const small = Math.max(100_000, Math.round(lo / 8));
      const second = stalledImport(ctx, token, small, 512, 'second.mp3', `a second .mp3 of ${small} bytes while the first is in flight`);
      try {
        const a = await answerWithin(second, 5000);
        const actual = a === null ? 'no answer within 5 s (taken in)' : `${a.status} ${a.body.slice(0, 200)}`;
        ctx.expect(
          'jobs.import.budget.decoded-4gb',
          `a ${small}-byte .mp3 while a ${lo}-byte one (decoded estimate near 4 GB) is in flight`,
          x.that(a !== null && a.status === 429 && errorCodeOf(a.body) === 'import_budget_full', '429 import_budget_full', actual),
          second.exchange,
        );
      } finally {
        second.close();
      }
    } finally {
      first.close();
    }
  },
});
