import { defineCheck } from '../../harness/check.ts';
import { togglableSections } from '../../harness/config.ts';
import * as x from '../../harness/expect.ts';
import { CONFIG_SECTIONS } from '../../spec/constants.ts';

export const check = defineCheck({
  id: 'config/put-replaces-section',
  clauses: ['config.put.replaces-section'],
  level: 'requirement',
  needs: ['token'],
  description:
    'For each section with a boolean field f: PUT with f=true then PUT without f, and PUT with ' +
    'f=false then PUT without f. If the value read back after omitting f follows the previous ' +
    'value (true, then false), the omitted field was kept, not dropped. The section is restored ' +
    'afterwards.',
  requirement: 'PUT /v1/config/{section} replaces the whole section, so fields left out of the body are dropped rather than kept.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    let tried = 0;
    for await (const { section, original, field } of togglableSections(api, CONFIG_SECTIONS)) {
      tried += 1;
      const { [field]: _omitted, ...rest } = original;
      const afterOmitting = async (value: boolean): Promise<unknown> => {
        await api.put(`/v1/config/${section}`, { json: { ...original, [field]: value } });
        const put = await api.put(`/v1/config/${section}`, { json: rest });
        ctx.expect('config.put.replaces-section', `PUT /v1/config/${section} without ${field}`, x.success(put), put);
        const get = await api.get(`/v1/config/${section}`);
        return (get.body as { config?: Record<string, unknown> } | undefined)?.config?.[field];
      };
      try {
        const a = await afterOmitting(true);
        const b = await afterOmitting(false);
        ctx.expect(
          'config.put.replaces-section',
          `${section}.${field} read back after a PUT that omits it (previously true, then previously false)`,
          x.that(
            !(a === true && b === false),
            'the same value both times (the default, or absent): the omitted field is dropped',
            `${x.show(a)} then ${x.show(b)}: the earlier value was kept`,
          ),
        );
      } finally {
        await api.put(`/v1/config/${section}`, { json: original, label: 'restore the section' });
      }
    }
    if (tried === 0) return ctx.skip('no section has a boolean field to change (the section fields are a gap)');
  },
});
