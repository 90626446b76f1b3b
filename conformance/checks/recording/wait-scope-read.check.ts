import { defineCheck } from '../../harness/check.ts';
import { readSse } from '../../harness/sse.ts';

export const check = defineCheck({
  id: 'recording/wait-scope-read',
  clauses: ['recording.wait.scope-read'],
  level: 'conflict',
  // 'own': it judges a recording wait's status and media type only, which a recording beside it does not change.
  touches: 'own',
  needs: ['tokens'],
  description:
    'GET /v1/recording/wait?until=started with a read-only token opens the stream (the spec’s ' +
    'reading) rather than 403 insufficient_scope (the index table’s record).',
  requirement: 'GET /v1/recording/wait needs only a read-satisfying scope, which the spec chooses over an index table that lists record.',
  async run(ctx) {
    const read = (await ctx.mint({ scopes: ['read'] })).token;
    const sse = await readSse(ctx.api, '/v1/recording/wait', {
      token: read,
      query: { until: 'started', timeout: 1 },
      deadlineMs: 5000,
      closeGraceMs: 1000,
    });
    const code = (() => {
      try {
        return (JSON.parse(sse.text) as { error?: { code?: string } }).error?.code;
      } catch {
        return undefined;
      }
    })();
    const actual = `${sse.status} ${sse.mediaType}${code === undefined ? '' : ` ${code}`}`;
    let matched: number | null = null;
    if (sse.status === 200 && sse.mediaType === 'text/event-stream') matched = 0;
    else if (sse.status === 403 && code === 'insufficient_scope') matched = 1;
    ctx.conflict(
      'recording.wait.scope-read',
      'GET /v1/recording/wait?until=started&timeout=1 with a read-only token',
      matched,
      actual,
      sse.exchange,
    );
  },
});
