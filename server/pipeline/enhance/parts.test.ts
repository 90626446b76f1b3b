/**
 * The front end on more than one thread (parts.ts, front-end.ts's passes):
 * WPE cut into runs of blocks and joined gives the whole recording's output
 * to rounding, and with concurrent passes a noisy recording's dereverberation
 * starts beside its first denoising and is stopped when it is not needed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { enhanceSpeech, IN_PLACE_PASSES, type FrontEndPasses } from './front-end.ts';
import { joinWpeParts, planWpeParts } from './parts.ts';
import { dereverberate, dereverberateBlocks } from './wpe.ts';
import { PIPELINE_SAMPLE_RATE, uncontrolled, type PcmAudio, type StageControl } from '../types.ts';

function pcm(samples: Float32Array): PcmAudio {
  return { sampleRate: PIPELINE_SAMPLE_RATE, samples, durationSeconds: samples.length / PIPELINE_SAMPLE_RATE };
}

/** A decaying tone burst every 0.5 s over a little noise: something for WPE to predict. */
function reverberantBursts(seconds: number): Float32Array {
  const out = new Float32Array(Math.round(seconds * PIPELINE_SAMPLE_RATE));
  let seed = 7;
  for (let i = 0; i < out.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const t = i / PIPELINE_SAMPLE_RATE;
    const since = t % 0.5;
    out[i] =
      0.4 * Math.exp(-since / 0.15) * Math.sin(2 * Math.PI * (180 + 40 * Math.floor(t / 0.5)) * t) + 0.01 * (seed / 0x7fffffff - 0.5);
  }
  return out;
}

// Small blocks (200 frames, 1.6 s) so a short signal has several.
const SMALL_BLOCKS = { blockFrames: 200 };

for (const count of [2, 3, 5]) {
  test(`WPE in ${count} runs of blocks, joined, is the whole recording's output to rounding`, async () => {
    const audio = pcm(reverberantBursts(8.3));
    const whole = await dereverberate(audio, uncontrolled(), SMALL_BLOCKS);
    const plan = planWpeParts(audio.samples.length, count, SMALL_BLOCKS);
    assert.equal(plan.length, count);
    assert.equal(plan[0]!.blocks.from, 0);
    for (let i = 1; i < plan.length; i++) assert.equal(plan[i]!.blocks.from, plan[i - 1]!.blocks.to, 'the runs follow one another');
    const outputs = [];
    for (const part of plan) {
      // Each part sees only the samples it reads, as on a worker.
      const slice = audio.samples.slice(...part.read);
      outputs.push(await dereverberateBlocks(slice, part.read[0], audio.samples.length, part.blocks, uncontrolled(), SMALL_BLOCKS));
    }
    const joined = joinWpeParts(audio.samples.length, outputs);
    let worst = 0;
    for (let i = 0; i < joined.length; i++) worst = Math.max(worst, Math.abs(joined[i]! - whole.samples[i]!));
    assert.ok(worst < 1e-6, `largest difference ${worst}`);
  });
}

test('a recording with fewer blocks than threads is cut into as many parts as it has blocks', () => {
  assert.equal(planWpeParts(16_000, 4).length, 1);
  assert.equal(planWpeParts(16_000 * 130, 2).length, 2);
});

/**
 * Passes that log when they start and end, on a noisy recording whose
 * reverberation estimate after denoising the test chooses. No timers: the
 * dereverberation waits until the second estimate (the decision) has been
 * asked for (or it is stopped), then for the event loop's next turn, by
 * when a dropped pass has been stopped.
 */
function loggingPasses(rt60AfterDenoise: number, log: string[]): FrontEndPasses {
  let estimates = 0;
  let decided: () => void = () => undefined;
  const decision = new Promise<void>((resolve) => (decided = resolve));
  return {
    concurrent: true,
    estimate() {
      if (++estimates === 2) decided();
      return Promise.resolve({ snrDb: 10, rt60Seconds: estimates === 1 ? 0.3 : rt60AfterDenoise, decays: 100 });
    },
    async denoise(audio) {
      log.push('denoise start');
      await Promise.resolve();
      log.push('denoise end');
      return { audio, speechProbability: new Float32Array(1) };
    },
    async dereverberate(audio, control) {
      log.push('dereverberate start');
      control.progress(0.5);
      // As on a worker, stopping the pass ends it wherever it is.
      const stopped = new Promise<void>((resolve) => control.signal.addEventListener('abort', () => resolve(), { once: true }));
      await Promise.race([decision, stopped]);
      await new Promise((resolve) => setImmediate(resolve));
      await control.checkpoint();
      control.progress(1);
      log.push('dereverberate end');
      return audio;
    },
  };
}

const AUTO = { enhancement: 'auto' as const, denoise: true, dereverberation: true };

test('concurrent passes: a noisy, reverberant recording is dereverberated beside its first denoising, progress only forward', async () => {
  const log: string[] = [];
  const progress: number[] = [];
  const control: StageControl = { ...uncontrolled(), progress: (f) => progress.push(f) };
  const out = await enhanceSpeech(pcm(new Float32Array(16_000)), AUTO, control, loggingPasses(0.2, log));
  assert.equal(out.dereverberated, true);
  assert.equal(out.denoised, true);
  assert.deepEqual(log.slice(0, 2), ['denoise start', 'dereverberate start']);
  // The second denoising waits for the dereverberated audio.
  assert.ok(log.indexOf('dereverberate end') < log.lastIndexOf('denoise start'));
  for (let i = 1; i < progress.length; i++) assert.ok(progress[i]! > progress[i - 1]!, `progress went back: ${progress.join(', ')}`);
});

test('concurrent passes: the dereverberation started early is stopped when the recording turns out not reverberant', async () => {
  const log: string[] = [];
  const out = await enhanceSpeech(pcm(new Float32Array(16_000)), AUTO, uncontrolled(), loggingPasses(0.05, log));
  assert.equal(out.dereverberated, false);
  assert.equal(out.denoised, true);
  assert.ok(log.includes('dereverberate start'));
  assert.ok(!log.includes('dereverberate end'), 'the early pass was stopped at a checkpoint');
});

test('concurrent passes: a failed denoising stops the early dereverberation and fails the stage', async () => {
  const log: string[] = [];
  const passes = loggingPasses(0.2, log);
  const failing: FrontEndPasses = { ...passes, denoise: () => Promise.reject(new Error('denoiser broke')) };
  await assert.rejects(enhanceSpeech(pcm(new Float32Array(16_000)), AUTO, uncontrolled(), failing), /denoiser broke/);
  assert.ok(!log.includes('dereverberate end'));
});

test('in place, passes run one after another (nothing is started early)', async () => {
  assert.equal(IN_PLACE_PASSES.concurrent, false);
  const log: string[] = [];
  const sequential = { ...loggingPasses(0.05, log), concurrent: false };
  await enhanceSpeech(pcm(new Float32Array(16_000)), AUTO, uncontrolled(), sequential);
  assert.deepEqual(log, ['denoise start', 'denoise end']);
});
