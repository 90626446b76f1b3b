/**
 * The pipeline's worker thread (off-thread.ts): the stages it runs give what
 * they give in place, cancelling ends a running stage, and the gateway keeps
 * answering HTTP while a job's front end computes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { wavFromPcm16 } from '../../common/audio/wav.ts';
import { testGateway } from '../testing/gateway.ts';
import { enhanceSpeech } from './enhance/front-end.ts';
import { OffThreadRunner, offThreadDiarizer, offThreadEnhancer } from './off-thread.ts';
import { diarizeWithVoices } from './diarize.ts';
import { CancelledError, PIPELINE_SAMPLE_RATE, uncontrolled, type DiarizationSettings, type PcmAudio, type StageControl } from './types.ts';

/** Deterministic noisy "speech": bursts of a vowel-like tone in pink-ish noise. */
function noisyBursts(seconds: number): Float32Array {
  const n = Math.round(seconds * PIPELINE_SAMPLE_RATE);
  const out = new Float32Array(n);
  let seed = 12345;
  let low = 0;
  for (let i = 0; i < n; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    low = 0.95 * low + 0.05 * (seed / 0x7fffffff - 0.5);
    const t = i / PIPELINE_SAMPLE_RATE;
    const on = Math.floor(t / 0.7) % 2 === 0;
    const voice = on ? 0.3 * Math.sin(2 * Math.PI * (t % 1.4 < 0.7 ? 140 : 210) * t) * (1 + 0.5 * Math.sin(2 * Math.PI * 700 * t)) : 0;
    out[i] = voice + 0.4 * low;
  }
  return out;
}

function pcm(samples: Float32Array): PcmAudio {
  return { sampleRate: PIPELINE_SAMPLE_RATE, samples, durationSeconds: samples.length / PIPELINE_SAMPLE_RATE };
}

test('the front end on the worker gives what it gives in place, with progress', async () => {
  const runner = new OffThreadRunner();
  try {
    const audio = pcm(noisyBursts(4));
    const settings = { enhancement: 'on' as const, denoise: true, dereverberation: true };
    const here = await enhanceSpeech(audio, settings, uncontrolled());
    const progress: number[] = [];
    const control: StageControl = { ...uncontrolled(), progress: (f) => progress.push(f) };
    const there = await offThreadEnhancer(runner)(audio, settings, control);
    assert.deepEqual(there.samples, here.audio.samples);
    assert.deepEqual(there.speechProbability, here.audio.speechProbability);
    assert.equal(there.durationSeconds, audio.durationSeconds);
    assert.ok(progress.length > 0 && progress.at(-1)! > 0.9, 'progress reached the caller');
    // Off: no trip to the worker, the same audio object back.
    assert.equal(await offThreadEnhancer(runner)(audio, { ...settings, enhancement: 'off' }, uncontrolled()), audio);
  } finally {
    await runner.close();
  }
});

test('the diarizer on the worker gives the turns it gives in place', async () => {
  const runner = new OffThreadRunner();
  try {
    const audio = pcm(noisyBursts(12));
    const regions = [
      { start: 0, end: 6 },
      { start: 6.5, end: 12 },
    ];
    const settings: DiarizationSettings = {
      enabled: true,
      min_speakers: 1,
      max_speakers: 4,
      speaker_count: null,
      clustering_threshold: 0.5,
    };
    assert.deepEqual(
      await offThreadDiarizer(runner)(audio, regions, settings, uncontrolled()),
      await diarizeWithVoices(audio, regions, settings, uncontrolled()),
    );
  } finally {
    await runner.close();
  }
});

test('cancelling ends a running stage with CancelledError, and the next task runs on a fresh worker', async () => {
  const runner = new OffThreadRunner();
  try {
    const abort = new AbortController();
    const control: StageControl = {
      ...uncontrolled(),
      signal: abort.signal,
      // Cancelled as soon as the stage reports it is under way.
      progress: (f) => {
        if (f > 0) abort.abort();
      },
    };
    const settings = { enhancement: 'on' as const, denoise: true, dereverberation: true };
    await assert.rejects(offThreadEnhancer(runner)(pcm(noisyBursts(30)), settings, control), CancelledError);
    const after = await offThreadEnhancer(runner)(pcm(noisyBursts(1)), settings, uncontrolled());
    assert.equal(after.samples.length, PIPELINE_SAMPLE_RATE);
  } finally {
    await runner.close();
  }
});

test('a failing task fails its caller with a StageError and the runner goes on', async () => {
  const runner = new OffThreadRunner();
  try {
    await assert.rejects(runner.run('no-such-task', {}, uncontrolled()), /no task "no-such-task"/);
    await assert.rejects(
      runner.run('bias-lm', { lmPath: '/nonexistent/model.lm.bin', words: ['x'], boost: 2, floor: 1e-4 }, uncontrolled()),
      /ENOENT|no such file/,
    );
  } finally {
    await runner.close();
  }
});

test('the gateway answers GET /health while an import runs its front end', async () => {
  const gw = testGateway();
  const server = gw.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const auth = gw.bearer(['read', 'write']);
  try {
    const put = await request(gw.app).put('/v1/config/vad').set('Authorization', auth).send({ enhancement: 'on' });
    assert.equal(put.status, 200);
    // A minute of audio: dereverberation and denoising take seconds of CPU.
    const samples = noisyBursts(60);
    const pcm16 = Buffer.alloc(samples.length * 2);
    samples.forEach((v, i) => pcm16.writeInt16LE(Math.round(Math.max(-1, Math.min(1, v)) * 32767), 2 * i));
    const res = await fetch(`${base}/v1/jobs/import?filename=load.wav&title=load`, {
      method: 'POST',
      headers: { Authorization: auth, 'Content-Type': 'application/octet-stream' },
      body: wavFromPcm16(pcm16),
    });
    assert.equal(res.status, 202);
    const jobId = ((await res.json()) as { job_id: string }).job_id;
    const job = async () =>
      (await (await fetch(`${base}/v1/jobs/${jobId}`, { headers: { Authorization: auth } })).json()) as { stage: string; state: string };

    // Wait for the front end to start, then ask for /health until it has ended.
    let state = await job();
    while (state.stage !== 'enhancing' && !['succeeded', 'failed', 'cancelled'].includes(state.state)) state = await job();
    let answeredDuringFrontEnd = 0;
    while (state.stage === 'enhancing') {
      const health = await fetch(`${base}/health`);
      assert.equal(health.status, 200);
      await health.arrayBuffer();
      state = await job();
      if (state.stage === 'enhancing') answeredDuringFrontEnd++;
    }
    // With the front end on the event loop, no request could be answered while it ran.
    assert.ok(answeredDuringFrontEnd >= 3, `GET /health answered ${answeredDuringFrontEnd} times while the front end ran`);
    const cancel = await fetch(`${base}/v1/jobs/${jobId}/cancel`, { method: 'POST', headers: { Authorization: auth } });
    await cancel.arrayBuffer();
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    gw.close();
  }
});
