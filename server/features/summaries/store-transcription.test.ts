/**
 * The one way a finished transcription is stored (store-transcription.ts):
 * its stages and progress, the three answers to audio without speech, and
 * each event published once, by the service that wrote the change.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { testGateway } from '../../testing/gateway.ts';
import { toneWav } from '../../../common/audio/wav.ts';
import { NO_SPEECH_SUMMARY } from './service.ts';
import { storeTranscription } from './store-transcription.ts';

const SPEECH = {
  speechFound: true,
  segments: [{ speaker: 'S1', start: 0, end: 1, text: 'hello there', words: [{ text: 'hello', start: 0, end: 0.5, confidence: 0.9 }] }],
};
const NO_SPEECH = { speechFound: false, segments: [] };

function recorder() {
  const stages: string[] = [];
  const progress: number[] = [];
  return { stages, progress, steps: { stage: (s: string) => stages.push(s), progress: (f: number) => progress.push(f) } };
}

test('an import without speech: a meeting with its recording and the no-speech summary; each event once', async () => {
  const gw = testGateway();
  try {
    const { meetings, summaries, bus } = gw.deps;
    const events: string[] = [];
    const unsubscribe = bus.subscribe((e) => events.push(e.event));
    const upload = join(gw.dataDir, 'uploads', 'job_x.wav');
    writeFileSync(upload, toneWav());
    const saved: string[] = [];
    const { stages, progress, steps } = recorder();
    const id = await storeTranscription(
      { meetings, summaries },
      NO_SPEECH,
      {
        newMeeting: {
          title: 'tone',
          created_at: new Date().toISOString(),
          source: 'import',
          language: 'en',
          recording: { upload: 'job_x.wav' },
        },
        meetingSaved: (meetingId) => saved.push(meetingId),
      },
      steps,
    );
    unsubscribe();
    assert.deepEqual(saved, [id]);
    assert.deepEqual(stages, ['saving', 'summarizing']);
    assert.deepEqual(progress, [0.95]);
    assert.equal(meetings.summary(id).result?.text, NO_SPEECH_SUMMARY);
    assert.equal(meetings.summary(id).result?.template_id, 'daily_standup', 'the summary saved with the meeting is kept as it was');
    assert.notEqual(meetings.recording(id), null);
    assert.equal(existsSync(upload), false, 'the upload became the recording');
    assert.deepEqual(events, ['transcript.updated', 'summary.completed']);
  } finally {
    gw.close();
  }
});

test('an import: the job names its meeting inside the transaction that commits it; a failure there leaves no meeting and the upload in place', async () => {
  const gw = testGateway();
  try {
    const { meetings, summaries } = gw.deps;
    const upload = join(gw.dataDir, 'uploads', 'job_y.wav');
    writeFileSync(upload, toneWav());
    const before = meetings.list({ limit: 100, offset: 0 }).total;
    const { steps } = recorder();
    let named: string | null = null;
    await assert.rejects(
      storeTranscription(
        { meetings, summaries },
        NO_SPEECH,
        {
          newMeeting: { title: 'tone', created_at: new Date().toISOString(), source: 'import', recording: { upload: 'job_y.wav' } },
          meetingSaved: (meetingId) => {
            named = meetingId;
            assert.equal(gw.db.isTransaction, true, 'called inside the meeting transaction');
            throw new Error('the job could not be updated');
          },
        },
        steps,
      ),
      /the job could not be updated/,
    );
    assert.notEqual(named, null);
    assert.equal(meetings.exists(named!), false, 'the meeting was rolled back with the job update');
    assert.equal(meetings.list({ limit: 100, offset: 0 }).total, before);
    assert.equal(existsSync(upload), true, 'the upload is back where it was');
  } finally {
    gw.close();
  }
});

test('a recording: its transcript replaced, the automatic summary; without speech, the no-speech summary', async () => {
  const gw = testGateway();
  try {
    const { meetings, summaries, bus } = gw.deps;
    for (const [result, text] of [
      [SPEECH, null],
      [NO_SPEECH, NO_SPEECH_SUMMARY],
    ] as const) {
      const meeting = meetings.create({
        title: 'rec',
        created_at: new Date().toISOString(),
        source: 'recording',
        segments: [],
        summary: null,
        audio: true,
      });
      const events: string[] = [];
      const unsubscribe = bus.subscribe((e) => events.push(e.event));
      const { stages, steps } = recorder();
      await storeTranscription({ meetings, summaries }, result, { meetingId: meeting.id, noSpeech: 'store-empty', summarize: true }, steps);
      unsubscribe();
      assert.deepEqual(stages, ['saving', 'summarizing']);
      assert.equal(meetings.transcript(meeting.id).segments.length, result.segments.length);
      const summary = meetings.summary(meeting.id);
      assert.equal(summary.status, 'ready', JSON.stringify(summary));
      if (text !== null) assert.equal(summary.result?.text, text);
      assert.deepEqual(events, ['transcript.updated', 'summary.completed']);
    }
  } finally {
    gw.close();
  }
});

test('a retranscription without speech fails and keeps the transcript; with speech it replaces it, and the summary stays', async () => {
  const gw = testGateway();
  try {
    const { meetings, summaries, bus } = gw.deps;
    const meeting = meetings.create({
      title: 'kept',
      created_at: new Date().toISOString(),
      segments: [{ speaker: 'S1', start: 0, end: 1, text: 'old words' }],
      summary: { text: 'the old summary' },
      audio: true,
    });
    const events: string[] = [];
    const unsubscribe = bus.subscribe((e) => events.push(e.event));
    const into = { meetingId: meeting.id, noSpeech: 'keep-transcript', summarize: false } as const;
    await assert.rejects(storeTranscription({ meetings, summaries }, NO_SPEECH, into, recorder().steps), /no speech was found/);
    assert.equal(meetings.transcript(meeting.id).segments[0]?.text, 'old words');
    assert.deepEqual(events, [], 'nothing written, nothing announced');
    const { stages } = recorder();
    await storeTranscription({ meetings, summaries }, SPEECH, into, { stage: (s) => stages.push(s), progress: () => undefined });
    unsubscribe();
    assert.deepEqual(stages, ['saving']);
    assert.equal(meetings.transcript(meeting.id).segments[0]?.text, 'hello there');
    assert.equal(meetings.summary(meeting.id).result?.text, 'the old summary');
    assert.deepEqual(events, ['transcript.updated']);
  } finally {
    gw.close();
  }
});
