import { defineCheck } from '../../harness/check.ts';
import { armingSection, readSection } from '../../harness/config.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'config/auto-record-needs-record',
  clauses: ['config.auto-record.needs-record'],
  level: 'requirement',
  needs: ['tokens', 'settings'],
  description:
    'With remote recording pre-armed: arming auto-record (PUT meeting-detection with its ' +
    'auto-record field true) with a write-only token is refused, while a write+record token may ' +
    'arm it. The section and settings are restored.',
  requirement: 'Arming auto-record through a config PUT additionally requires the record scope, so a token without record cannot arm it.',
  async run(ctx) {
    const admin = ctx.as(await ctx.token());
    const arming = await armingSection(admin);
    if ('skip' in arming) return ctx.skip(arming.skip);
    const { original, field } = arming;
    const before = await ctx.control.settings();
    await ctx.control.patchSettings({ remote_recording_prearmed: true });
    try {
      const disarmed = { ...original, [field]: false };
      await admin.put('/v1/config/meeting-detection', { json: disarmed, label: 'start disarmed' });
      const writeOnly = ctx.as((await ctx.mint({ scopes: ['read', 'write'] })).token);
      const refused = await writeOnly.put('/v1/config/meeting-detection', { json: { ...original, [field]: true } });
      ctx.expect(
        'config.auto-record.needs-record',
        `PUT /v1/config/meeting-detection {${field}: true} with read+write (no record)`,
        x.refused(refused, 403),
        refused,
      );
      if (refused.status !== 403 || refused.errorCode !== 'insufficient_scope')
        ctx.note(`the refusal was ${refused.status} ${refused.errorCode ?? ''}; 403 insufficient_scope is the presumed answer`);
      const after = await readSection(admin, 'meeting-detection');
      ctx.expect('config.auto-record.needs-record', `${field} after the refused arming`, x.equal(after?.[field], false, field));
      const both = ctx.as((await ctx.mint({ scopes: ['read', 'write', 'record'] })).token);
      const armed = await both.put('/v1/config/meeting-detection', { json: { ...original, [field]: true } });
      ctx.expect(
        'config.auto-record.needs-record',
        `PUT /v1/config/meeting-detection {${field}: true} with read+write+record and pre-arming on`,
        x.success(armed),
        armed,
      );
    } finally {
      await admin.put('/v1/config/meeting-detection', { json: original, label: 'restore the section' });
      await ctx.control.patchSettings({ remote_recording_prearmed: before.remote_recording_prearmed });
    }
  },
});
