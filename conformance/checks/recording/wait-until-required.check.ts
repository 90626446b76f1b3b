import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { readSse } from '../../harness/sse.ts';
import { describeStream } from '../../harness/waits.ts';

export const check = defineCheck({
  id: 'recording/wait-until-required',
  clauses: ['recording.wait.until-required'],
  level: 'requirement',
  // 'own': it judges a recording wait's status and media type only, which a recording beside it does not change.
  touches: 'own',
  needs: ['token'],
  description:
    'GET /v1/recording/wait without until, and with until=paused, stopping, start, "" and a ' +
    'list (case is not judged): each refused with a 4xx envelope (not a stream).',
  requirement: 'The recording wait requires until with the value started or stopped, and a missing or other value is refused.',
  async run(ctx) {
    const token = await ctx.token(['read']);
    for (const until of [undefined, 'paused', 'stopping', '', 'start', 'started,stopped']) {
      const s = await readSse(ctx.api, '/v1/recording/wait', { token, query: { until, timeout: 1 }, deadlineMs: 5000, closeGraceMs: 500 });
      let env: boolean;
      try {
        const b = JSON.parse(s.text) as { error?: { code?: unknown } };
        env = typeof b.error?.code === 'string';
      } catch {
        env = false;
      }
      ctx.expect(
        'recording.wait.until-required',
        `GET /v1/recording/wait${until === undefined ? '' : `?until=${until}`}`,
        x.that(s.status >= 400 && s.status < 500 && env, 'a 4xx status with the error envelope (400 presumed)', describeStream(s)),
        s.exchange,
      );
    }
  },
});
