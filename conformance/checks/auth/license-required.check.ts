import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'auth/license-required',
  clauses: ['auth.license-required.402', 'errors.code.license_required.402'],
  level: 'requirement',
  needs: ['settings', 'tokens'],
  description: 'With license "none", a valid token with every scope gets 402 license_required; back on "pro", it works again.',
  requirement: 'Without a Pro license on the installation, API calls are refused with 402 license_required.',
  async run(ctx) {
    const api = ctx.as((await ctx.mint({ scopes: ['read', 'record', 'write', 'delete'] })).token);
    const before = await ctx.control.settings();
    await ctx.control.patchSettings({ automation_api_enabled: true, license: 'none' });
    try {
      for (const path of ['/v1/whoami', '/v1/meetings', '/openapi.json', '/v1/models']) {
        const res = await api.get(path);
        ctx.expect(
          ['auth.license-required.402', 'errors.code.license_required.402'],
          `GET ${path} without a Pro license`,
          x.error(res, 402, 'license_required'),
          res,
        );
      }
    } finally {
      await ctx.control.patchSettings({ license: before.license, automation_api_enabled: before.automation_api_enabled });
    }
    const again = await api.get('/v1/whoami');
    ctx.expect('auth.license-required.402', 'GET /v1/whoami with the Pro license back', x.status(again, 200), again);
  },
});
