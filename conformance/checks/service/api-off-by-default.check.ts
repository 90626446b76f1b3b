import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'service/api-off-by-default',
  clauses: ['service.api.off-by-default'],
  level: 'requirement',
  needs: ['fresh', 'settings', 'tokens'],
  order: 'first',
  description:
    'On a target started as a fresh installation (--fresh), before any reset: the Automation ' +
    'API switch is off and a valid token gets 403 api_disabled.',
  requirement:
    'On a fresh installation the Automation API switch is off, so API calls are not served ' +
    "until it is turned on in the application's integration settings.",
  async run(ctx) {
    const settings = await ctx.control.settings();
    ctx.expect(
      'service.api.off-by-default',
      'GET /control/settings of the fresh installation',
      x.equal(settings.automation_api_enabled, false, 'automation_api_enabled'),
    );
    const token = (await ctx.mint({ scopes: ['read', 'record', 'write', 'delete'] })).token;
    for (const path of ['/v1/whoami', '/v1/meetings']) {
      const res = await ctx.as(token).get(path);
      ctx.expect(
        'service.api.off-by-default',
        `GET ${path} with a valid token on the fresh installation`,
        x.error(res, 403, 'api_disabled'),
        res,
      );
    }
  },
});
