import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { inputDevice } from '../../harness/devices.ts';
import { pollRecording } from '../../harness/recording.ts';

export const check = defineCheck({
  id: 'recording/consent-false',
  clauses: ['recording.start.consent-false.400'],
  level: 'conflict',
  touches: 'recorder',
  needs: ['token'], // and an input device (harness/devices.ts)
  description:
    'With a simulated microphone plugged (or an input device GET /v1/devices lists), POST /v1/recording/start {"consent_attested": false}: ' +
    '400 bad_request whose message says it must be true, recording not started (the spec), or ' +
    'accepted as a no-op (NON_STRICT).',
  requirement:
    'A start request with consent_attested false is refused with 400 and a message saying it ' +
    'must be true, which the spec chooses over one reference that calls the field an accepted ' +
    'no-op.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'record']));
    await inputDevice(ctx, api, { name: 'Conformance Mic', script: null });
    const res = await api.post('/v1/recording/start', { json: { consent_attested: false } });
    const after = await api.get('/v1/recording');
    const state = (after.body as { state?: unknown } | undefined)?.state;
    const message = (res.body as { error?: { message?: unknown } } | undefined)?.error?.message;
    let matched: number | null = null;
    if (res.status === 400 && res.errorCode === 'bad_request' && typeof message === 'string' && /true/i.test(message) && state === 'idle')
      matched = 0;
    else if (res.ok && state !== 'idle') matched = 1;
    ctx.conflict(
      'recording.start.consent-false.400',
      'POST /v1/recording/start {"consent_attested": false}',
      matched,
      `${res.describe(200)}; then state ${x.show(state)}`,
      res,
    );
    if (res.ok) {
      await pollRecording(api, ['recording'], 5000);
      await api.post('/v1/recording/stop', { label: 'clean up' });
      await pollRecording(api, ['idle'], 20_000);
    }
  },
});
