import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { CONFIG_SECTIONS } from '../../spec/constants.ts';

export const check = defineCheck({
  id: 'config/sections-valid',
  clauses: ['config.sections.valid'],
  level: 'requirement',
  needs: ['token'],
  description: 'GET /v1/config/{section} answers 200 for each of the eight sections.',
  requirement:
    'Exactly eight sections are valid (vad, diarization, speaker-identification, ' +
    'meeting-detection, global-shortcut, audio-player, custom-words, initial-prompt) and each ' +
    'can be read with GET /v1/config/{section}.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    for (const section of CONFIG_SECTIONS) {
      const res = await api.get(`/v1/config/${section}`);
      ctx.expect('config.sections.valid', `GET /v1/config/${section}`, x.all(x.status(res, 200), x.json(res)), res);
    }
  },
});
