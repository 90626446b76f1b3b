import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { CONFIG_SECTIONS } from '../../spec/constants.ts';

export const check = defineCheck({
  id: 'config/fields-withheld',
  clauses: ['config.fields-withheld.gap'],
  level: 'gap',
  needs: ['token'],
  description: 'Records each section’s fields with their types, and the type and value of withheld.',
  requirement: 'Which fields each section holds, and the type and meaning of withheld, are not shown and are implementation-defined.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    for (const section of CONFIG_SECTIONS) {
      const res = await api.get(`/v1/config/${section}`);
      const body = res.body as { config?: Record<string, unknown>; withheld?: unknown } | undefined;
      const fields = Object.entries(body?.config ?? {})
        .map(([k, v]) => `${k}: ${x.typeName(v)}`)
        .join(', ');
      ctx.observe('config.fields-withheld.gap', section, `${res.status}; fields {${fields}}; withheld ${x.show(body?.withheld)}`, res);
    }
  },
});
