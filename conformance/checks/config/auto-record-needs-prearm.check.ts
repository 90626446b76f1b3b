import { defineCheck } from '../../harness/check.ts';
import { armingSection, readSection } from '../../harness/config.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'config/auto-record-needs-prearm',
  clauses: ['config.auto-record.needs-prearm'],
  level: 'requirement',
  needs: ['tokens', 'settings'],
  description:
    'With a write+record token: arming auto-record is refused while remote_recording_prearmed ' +
    'is off, and accepted once it is on. The section and settings are restored.',
  requirement: 'Arming auto-record through a config PUT additionally requires pre-arming, so without it the arming is refused.',
  async run(ctx) {
    const admin = ctx.as(await ctx.token());
    const arming = await armingSection(admin);
    if ('skip' in arming) return ctx.skip(arming.skip);
    const { original, field } = arming;
    const before = await ctx.control.settings();
    const api = ctx.as((await ctx.mint({ scopes: ['read', 'write', 'record'] })).token);
    try {
      await admin.put('/v1/config/meeting-detection', { json: { ...original, [field]: false }, label: 'start disarmed' });
      await ctx.control.patchSettings({ remote_recording_prearmed: false });
      const refused = await api.put('/v1/config/meeting-detection', { json: { ...original, [field]: true } });
      ctx.expect(
        'config.auto-record.needs-prearm',
        `PUT /v1/config/meeting-detection {${field}: true} without pre-arming`,
        x.refused(refused),
        refused,
      );
      ctx.note(`without pre-arming the arming answered ${refused.status} ${refused.errorCode ?? ''}`);
      const after = await readSection(admin, 'meeting-detection');
      ctx.expect('config.auto-record.needs-prearm', `${field} after the refused arming`, x.equal(after?.[field], false, field));
      await ctx.control.patchSettings({ remote_recording_prearmed: true });
      const armed = await api.put('/v1/config/meeting-detection', { json: { ...original, [field]: true } });
      ctx.expect(
        'config.auto-record.needs-prearm',
        `PUT /v1/config/meeting-detection {${field}: true} with pre-arming on`,
        x.success(armed),
        armed,
      );
    } finally {
      await admin.put('/v1/config/meeting-detection', { json: original, label: 'restore the section' });
      await ctx.control.patchSettings({ remote_recording_prearmed: before.remote_recording_prearmed });
    }
  },
});
