import { defineCheck } from '../../harness/check.ts';
import { togglableSections } from '../../harness/config.ts';
import * as x from '../../harness/expect.ts';
import { CONFIG_SECTIONS } from '../../spec/constants.ts';

export const check = defineCheck({
  id: 'config/put-immediate',
  clauses: ['config.put.immediate'],
  level: 'requirement',
  needs: ['token'],
  description:
    'For each section with a boolean field: PUT the section with that field flipped answers 2xx ' +
    'with a ConfigDto showing the change, and the next GET equals it. The section is restored ' +
    'afterwards.',
  requirement: 'PUT /v1/config/{section} takes effect immediately, with no dry-run mode, and returns the resulting ConfigDto.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    let tried = 0;
    for await (const { section, original, field } of togglableSections(api, CONFIG_SECTIONS)) {
      tried += 1;
      const changed = { ...original, [field]: !(original[field] as boolean) };
      try {
        const put = await api.put(`/v1/config/${section}`, { json: changed });
        ctx.expect('config.put.immediate', `PUT /v1/config/${section} with ${field} flipped`, x.all(x.success(put), x.json(put)), put);
        const putConfig = (put.body as { config?: Record<string, unknown> } | undefined)?.config;
        ctx.expect(
          'config.put.immediate',
          `the ConfigDto PUT /v1/config/${section} answers`,
          x.equal(putConfig?.[field], changed[field], `config.${field}`),
          put,
        );
        const get = await api.get(`/v1/config/${section}`);
        ctx.expect(
          'config.put.immediate',
          `GET /v1/config/${section} right after the PUT`,
          x.equal((get.body as { config?: unknown } | undefined)?.config, putConfig, 'config'),
          get,
        );
      } finally {
        await api.put(`/v1/config/${section}`, { json: original, label: 'restore the section' });
      }
    }
    if (tried === 0) return ctx.skip('no section has a boolean field to change (the section fields are a gap)');
  },
});
