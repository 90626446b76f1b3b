import { defineCheck } from '../../harness/check.ts';
import type { ControlSettings } from '../../harness/control.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'health/always-200',
  clauses: ['health.always-200'],
  level: 'requirement',
  needs: ['settings'],
  description: 'GET /health stays 200 while the Automation API is off, without a license, and with an unverifiable license.',
  requirement: 'GET /health answers 200 in every service state, including while the API switch is off or the license is missing.',
  async run(ctx) {
    const before = await ctx.control.settings();
    const states: Array<[string, Partial<ControlSettings>]> = [
      ['Automation API switched off', { automation_api_enabled: false }],
      ['no Pro license', { automation_api_enabled: true, license: 'none' }],
      ['license verification unverifiable', { license: 'unverifiable' }],
    ];
    try {
      for (const [label, patch] of states) {
        await ctx.control.patchSettings(patch);
        const res = await ctx.api.get('/health', { label });
        ctx.expect('health.always-200', `GET /health with ${label}`, x.all(x.status(res, 200), x.json(res)), res);
      }
    } finally {
      await ctx.control.patchSettings({ automation_api_enabled: before.automation_api_enabled, license: before.license });
    }
  },
});
