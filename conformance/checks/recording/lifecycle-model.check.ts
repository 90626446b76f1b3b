import fc from 'fast-check';
import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import type { Command } from '../../harness/model.ts';
import { command, modelRun } from '../../harness/model.ts';
import { inputDevice } from '../../harness/devices.ts';
import { skipWhenStillPending } from '../../harness/polling.ts';
import { fromIdle, pollRecording } from '../../harness/recording.ts';

interface Model {
  state: 'idle' | 'recording' | 'paused';
}
interface Real {
  device: string;
}

/** The state each model state settles in, and the transients allowed on the way. */
const ON_THE_WAY: Record<Model['state'], string[]> = {
  idle: ['stopping', 'idle'],
  recording: ['starting', 'recording'],
  paused: ['paused'],
};

export const check = defineCheck({
  id: 'recording/lifecycle-model',
  clauses: ['recording.start.reaches-recording', 'recording.stop.to-idle'],
  level: 'requirement',
  touches: 'recorder',
  needs: ['token'], // and an input device (harness/devices.ts)
  timeoutMs: 180_000,
  description:
    'Model-based (fc.commands) over a simulated microphone (Control API; else an input device GET /v1/devices lists): random sequences of ' +
    'start, stop, pause, resume and read. start from idle must reach recording and stop from ' +
    'recording or paused must end idle (API.md Recording states); a start while not idle must ' +
    'be refused with a 4xx envelope and change nothing. pause and resume are a gap: the ' +
    "target's answers are recorded, and the model follows what the target reports, so a later " +
    'start or stop is still judged against the spec rows.',
  requirement: 'After an accepted start the recording state becomes recording once the capture pipeline is up.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'record']));
    const device = await inputDevice(ctx, api, { name: 'Conformance Model Mic', script: null });

    const settle = async (m: Model, clause: string, step: string): Promise<void> => {
      const poll = await pollRecording(api, [m.state], 30_000);
      const { res, state, seen } = poll;
      // Still starting or stopping after 30 s, on a path the model allows: slow, not wrong (decision 081).
      if (seen.every((s) => [...ON_THE_WAY[m.state], 'recording', 'paused'].includes(String(s))))
        skipWhenStillPending(ctx, `the recording after ${step}`, poll);
      ctx.expect(
        clause,
        `GET /v1/recording after ${step}`,
        x.that(
          state === m.state && seen.every((s) => [...ON_THE_WAY[m.state], 'recording', 'paused'].includes(String(s))),
          `state ${m.state}`,
          `states seen ${seen.map((s) => x.show(s)).join(' → ')}`,
        ),
        res,
      );
    };
    const start = command<Model, Real>(
      'start',
      () => true,
      async (m, r) => {
        const res = await api.post('/v1/recording/start', { json: { mic_device_name: r.device } });
        if (m.state !== 'idle') {
          ctx.expect('recording.start.reaches-recording', `POST /v1/recording/start while ${m.state}`, x.refused(res), res);
          await settle(m, 'recording.start.reaches-recording', `the refused start (${m.state})`);
          return;
        }
        ctx.expect('recording.start.reaches-recording', 'POST /v1/recording/start while idle', x.success(res), res);
        if (!res.ok) return;
        m.state = 'recording';
        await settle(m, 'recording.start.reaches-recording', 'start');
      },
    );
    const stop = command<Model, Real>(
      'stop',
      (m) => m.state !== 'idle',
      async (m) => {
        const res = await api.post('/v1/recording/stop');
        ctx.expect('recording.stop.to-idle', `POST /v1/recording/stop while ${m.state}`, x.success(res), res);
        if (!res.ok) return;
        m.state = 'idle';
        await settle(m, 'recording.stop.to-idle', 'stop');
      },
    );
    const pauseOrResume = (action: 'pause' | 'resume') =>
      command<Model, Real>(
        action,
        (m) => m.state !== 'idle',
        async (m) => {
          const res = await api.post(`/v1/recording/${action}`);
          const { state } = await pollRecording(api, action === 'pause' ? ['paused'] : ['recording'], 5_000);
          ctx.note(`${action} while ${m.state}: ${res.status}, then state ${x.show(state)}`);
          // A gap: follow what the target reports, as long as it is one of the spec's states.
          if (state === 'recording' || state === 'paused') m.state = state;
        },
      );
    const commands: Array<fc.Arbitrary<Command<Model, Real>>> = [
      fc.constant(start),
      fc.constant(stop),
      fc.constantFrom(pauseOrResume('pause'), pauseOrResume('resume')),
    ];
    // One fixed sequence first, so every row is met whatever the random runs draw.
    const real: Real = { device };
    const fixed: Model = { state: 'idle' };
    // The model starts idle: so must the recorder (an earlier check may have left it stopping).
    await fromIdle(ctx, api);
    for (const c of [start, pauseOrResume('pause'), pauseOrResume('resume'), start, stop, start, stop]) {
      if (c.check(fixed)) await c.run(fixed, real);
    }
    await modelRun<Model, Real>(ctx, 'recording lifecycle', {
      commands,
      maxCommands: 6,
      runs: ctx.runs(0.2),
      setup: async () => {
        // Every sequence starts from idle; a recorder that does not get there SKIPs (its model would be wrong).
        await fromIdle(ctx, api);
        return { model: { state: 'idle' }, real: { device } };
      },
      teardown: async () => {
        await api.post('/v1/recording/stop', { label: 'clean up' });
        await pollRecording(api, ['idle'], 30_000);
      },
    });
  },
});
