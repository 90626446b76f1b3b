import { defineCheck } from '../../harness/check.ts';

export const check = defineCheck({
  id: 'errors/subcode-conditions',
  clauses: ['errors.subcode-conditions.gap'],
  level: 'gap',
  needs: [],
  order: 'last',
  description: 'Records which requests of the run met which 409 sub-code.',
  requirement:
    'The conditions producing not_retryable, not_terminal, summary_generating, ' +
    'recording_active, recording_in_progress and engine_busy are not shown and are ' +
    'implementation-defined.',
  async run(ctx) {
    const seen = new Map<string, string>();
    for (const e of ctx.runLog) {
      if (e.response?.status !== 409) continue;
      let code = '?';
      try {
        code = String((JSON.parse(e.response.body) as { error?: { code?: unknown } }).error?.code);
      } catch {
        /* not JSON */
      }
      const key = `${code}: ${e.request.method} ${new URL(e.request.url).pathname.replace(/[0-9a-f]{8}-[0-9a-f-]{27,}/gi, '{id}')}`;
      if (!seen.has(key)) seen.set(key, e.curl);
    }
    for (const [key] of seen) ctx.observe('errors.subcode-conditions.gap', '409 met', key);
    if (seen.size === 0) ctx.observe('errors.subcode-conditions.gap', '409 met', 'none in this run');
  },
});
