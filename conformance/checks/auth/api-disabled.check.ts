import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import type { HttpResult } from '../../harness/http.ts';

export const check = defineCheck({
  id: 'auth/api-disabled',
  clauses: ['auth.api-disabled.403', 'errors.code.api_disabled.403'],
  level: 'requirement',
  needs: ['settings', 'tokens'],
  description:
    'With automation_api_enabled false, a valid token with every scope gets 403 api_disabled on ' +
    'read, write and token-free routes; switched back on, it works again.',
  requirement: 'While the Automation API switch is off, API calls are refused with 403 api_disabled.',
  async run(ctx) {
    const api = ctx.as((await ctx.mint({ scopes: ['read', 'record', 'write', 'delete'] })).token);
    const before = await ctx.control.settings();
    await ctx.control.patchSettings({ automation_api_enabled: false });
    try {
      const calls: Array<[string, () => Promise<HttpResult>]> = [
        ['GET /v1/whoami', () => api.get('/v1/whoami')],
        ['GET /v1/meetings', () => api.get('/v1/meetings')],
        ['GET /openapi.json', () => api.get('/openapi.json')],
        ['PUT /v1/config/vad', () => api.put('/v1/config/vad', { json: {} })],
        ['GET /v1/search?q=x', () => api.get('/v1/search', { query: { q: 'x' } })],
      ];
      for (const [what, call] of calls) {
        const res = await call();
        ctx.expect(
          ['auth.api-disabled.403', 'errors.code.api_disabled.403'],
          `${what} with the Automation API switched off`,
          x.error(res, 403, 'api_disabled'),
          res,
        );
      }
    } finally {
      await ctx.control.patchSettings({ automation_api_enabled: before.automation_api_enabled });
    }
    const again = await api.get('/v1/whoami');
    ctx.expect('auth.api-disabled.403', 'GET /v1/whoami after switching the API back on', x.status(again, 200), again);
  },
});
