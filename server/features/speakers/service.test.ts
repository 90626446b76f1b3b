/**
 * known_speakers and enrolment through the API (decision 147), without
 * audio: the enrolled names listed, a PUT without the field keeping them, a
 * PUT leaving a name out deleting its voiceprint, a name given without
 * enrolment listed and awaiting one; labels on a meeting without a
 * recording answered as always, the enrolment skipped with its reason; with
 * the section off, nothing learnt; enrolment reading the recording through
 * the front end the transcription runs (decision 167).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import request from 'supertest';
import { ALL_SCOPES, testGateway } from '../../testing/gateway.ts';
import { emptyStats } from '../../pipeline/diarize/features.ts';
import { toVoiceprint } from '../../pipeline/voiceprint.ts';
import { VoiceprintRepo } from './repo.ts';
import { SpeakersService } from './service.ts';
import { PIPELINE_SAMPLE_RATE, type PcmAudio } from '../../pipeline/types.ts';

/** A meeting with one speaker's words and no recording to learn a voice from. */
function meetingWithoutRecording(gw: ReturnType<typeof testGateway>) {
  return gw.deps.meetings.create({
    title: 'no recording',
    created_at: '2026-01-01T00:00:00Z',
    segments: [{ speaker: 'S1', start: 0, end: 5, text: 'hello there everyone' }],
    summary: null,
    audio: false,
  });
}

test('known_speakers lists the enrolled people; leaving one out of a PUT deletes their voiceprint', async () => {
  const gw = testGateway();
  const api = () => request(gw.app);
  const auth = gw.bearer(ALL_SCOPES);
  try {
    const repo = new VoiceprintRepo(gw.db);
    const s = emptyStats();
    s.n = 500;
    repo.enrol('Fiona', 'm1', toVoiceprint(s), '2026-01-01T00:00:00.000Z');
    repo.enrol('Omar', 'm1', toVoiceprint(s), '2026-01-02T00:00:00.000Z');
    const names = async () => {
      const res = await api().get('/v1/config/speaker-identification').set('Authorization', auth);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.withheld, ['voiceprints']);
      assert.deepEqual(Object.keys(res.body.config).sort(), ['enabled', 'known_speakers', 'match_threshold']);
      return res.body.config.known_speakers.map((k: { name: string }) => k.name);
    };
    assert.deepEqual(await names(), ['Fiona', 'Omar']);

    const put = (body: object) => api().put('/v1/config/speaker-identification').set('Authorization', auth).send(body);
    assert.equal((await put({ enabled: true })).status, 200);
    assert.deepEqual(repo.names(), ['Fiona', 'Omar']);
    const kept = await put({ enabled: true, known_speakers: [{ name: 'Omar' }, { name: 'Newcomer' }] });
    assert.equal(kept.status, 200);
    assert.deepEqual(
      kept.body.config.known_speakers.map((k: { name: string }) => k.name),
      ['Omar', 'Newcomer'],
    );
    assert.deepEqual(repo.names(), ['Omar']);
    assert.deepEqual(await names(), ['Omar', 'Newcomer']);
  } finally {
    gw.close();
  }
});

test('labels on a meeting without a recording are stored; the enrolment is skipped with its reason', async () => {
  const gw = testGateway();
  const api = () => request(gw.app);
  const auth = gw.bearer(ALL_SCOPES);
  try {
    const meeting = meetingWithoutRecording(gw);
    // Section off: labels are stored, nothing is learnt.
    const off = await api()
      .put(`/v1/meetings/${meeting.id}/speaker-labels`)
      .set('Authorization', auth)
      .send({ labels: { S1: 'Fiona' } });
    assert.equal(off.status, 200);
    await gw.deps.speakers.idle();
    assert.deepEqual(gw.deps.speakers.outcomes(meeting.id), []);

    await api().put('/v1/config/speaker-identification').set('Authorization', auth).send({ enabled: true });
    const on = await api()
      .put(`/v1/meetings/${meeting.id}/speaker-labels`)
      .set('Authorization', auth)
      .send({ labels: { S1: 'Fiona' } });
    assert.equal(on.status, 200);
    assert.deepEqual(on.body.labels, { S1: 'Fiona' });
    await gw.deps.speakers.idle();
    assert.deepEqual(
      gw.deps.speakers.outcomes(meeting.id).map((o) => [o.name, o.enrolled, o.reason]),
      [['Fiona', false, 'the meeting has no recording to learn the voices from']],
    );
    assert.deepEqual(gw.deps.speakers.enrolledNames(), []);
    // The skip is one log line naming the meeting and the reason.
    assert.deepEqual(
      gw.errors.map((e) => (e as Error).message),
      [`speaker enrolment skipped for meeting ${meeting.id}: the meeting has no recording to learn the voices from`],
    );
    gw.errors.length = 0;
  } finally {
    gw.close();
  }
});

test('enrolment runs on the run queue after the label update has answered; a stop drops what has not begun', async () => {
  const gw = testGateway();
  const api = () => request(gw.app);
  const auth = gw.bearer(ALL_SCOPES);
  try {
    const meeting = meetingWithoutRecording(gw);
    await api().put('/v1/config/speaker-identification').set('Authorization', auth).send({ enabled: true });
    // Asked for directly: it has not run when the call returns (the run queue starts it on the next turn).
    gw.deps.speakers.labelsSet(meeting.id, { S1: 'Fiona' });
    assert.deepEqual(gw.deps.speakers.outcomes(meeting.id), []);
    await gw.deps.speakers.idle();
    assert.equal(gw.deps.speakers.outcomes(meeting.id).length, 1);
    // Stopped with the gateway's workers before it began: nothing runs, nothing is written.
    gw.deps.speakers.labelsSet(meeting.id, { S1: 'Fiona' });
    gw.deps.speakers.stop();
    await gw.deps.speakers.idle();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(gw.deps.speakers.outcomes(meeting.id).length, 1);
    gw.errors.length = 0;
  } finally {
    gw.close();
  }
});

test('enrolment reads the recording through the transcription’s front end, with the vad section’s settings', async () => {
  const decoded: PcmAudio = { sampleRate: PIPELINE_SAMPLE_RATE, samples: new Float32Array(PIPELINE_SAMPLE_RATE), durationSeconds: 1 };
  const seen: { audio: PcmAudio; settings: unknown }[] = [];
  const vad = { enhancement: 'auto', denoise: true, dereverberation: true };
  const speakers = new SpeakersService({
    repo: { enrol: () => undefined } as unknown as VoiceprintRepo,
    clock: { now: () => new Date(0) },
    config: { effective: ((name: string) => (name === 'vad' ? vad : { enabled: true })) as never },
    meetings: {
      exists: () => true,
      recording: () => ({}) as never,
      transcript: () => ({ segments: [{ speaker: 'S1', start: 0, end: 1, text: 'hello' }] }) as never,
    },
    media: { audio: () => ({ path: 'recording.wav', ext: 'wav' }) as never },
    decoder: { decode: () => Promise.resolve(decoded) },
    enhance: (audio, settings) => {
      seen.push({ audio, settings });
      return Promise.resolve(audio);
    },
    log: () => undefined,
  });
  speakers.labelsSet('m1', { S1: 'Fiona' });
  await speakers.idle();
  assert.equal(seen.length, 1);
  assert.equal(seen[0]!.audio, decoded);
  assert.equal(seen[0]!.settings, vad);
  // One second of silence is too little to learn from: skipped with its reason, never an error.
  assert.equal(speakers.outcomes('m1')[0]!.enrolled, false);
});
