import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { CONFIG_SECTIONS } from '../../spec/constants.ts';

export const check = defineCheck({
  id: 'config/dto-shape',
  clauses: ['config.dto.shape'],
  level: 'requirement',
  needs: ['token'],
  description: 'Each section’s ConfigDto has section (its name), config (an object) and withheld.',
  requirement: 'A ConfigDto has section, config (an object) and withheld.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    for (const section of CONFIG_SECTIONS) {
      const res = await api.get(`/v1/config/${section}`);
      if (res.status !== 200) continue; // config/sections-valid reports it
      ctx.expect(
        'config.dto.shape',
        `ConfigDto of ${section}`,
        x.fields(res.body, { section: 'string', config: 'object', withheld: 'any' }, 'ConfigDto'),
        res,
      );
      ctx.expect(
        'config.dto.shape',
        `ConfigDto.section of ${section}`,
        x.equal((res.body as { section?: unknown }).section, section, 'section'),
        res,
      );
    }
  },
});
