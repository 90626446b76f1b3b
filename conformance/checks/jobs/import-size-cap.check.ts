import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { answerWithin, errorCodeOf, stalledImport } from '../../harness/jobs.ts';

const ABOVE_2GB = 2 * 1024 ** 3 + 1;

export const check = defineCheck({
  id: 'jobs/import-size-cap',
  clauses: ['jobs.import.size-cap.413', 'errors.code.payload_too_large.413'],
  level: 'requirement',
  needs: ['token'],
  description:
    'Starts an import announcing Content-Length 2 GiB + 1 and sends 1 KiB: the target must ' +
    'answer 413 payload_too_large at once (within 5 s), without waiting for the body.',
  requirement: 'An import body larger than 2 GB is refused with 413 payload_too_large.',
  async run(ctx) {
    const token = await ctx.token(['read', 'write']);
    for (const size of [ABOVE_2GB, 5 * 1024 ** 3]) {
      const up = stalledImport(ctx, token, size, 1024, 'huge.wav');
      try {
        const a = await answerWithin(up, 5000);
        const actual = a === null ? 'no answer within 5 s (the target waits for the body)' : `${a.status} ${a.body.slice(0, 200)}`;
        const ok = a !== null && a.status === 413 && errorCodeOf(a.body) === 'payload_too_large';
        ctx.expect(
          ['jobs.import.size-cap.413', 'errors.code.payload_too_large.413'],
          `POST /v1/jobs/import with Content-Length ${size}`,
          x.that(ok, '413 {"error": {"code": "payload_too_large", …}} at once', actual),
          up.exchange,
        );
      } finally {
        up.close();
      }
    }
  },
});
