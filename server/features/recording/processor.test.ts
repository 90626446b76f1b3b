/**
 * The recorder's processing on the one transcription path, with the real
 * decoder and stand-ins for the later stages: a recording whose audio holds
 * no speech keeps its (empty) transcript and gets a summary saying so;
 * processing succeeds (decision 031).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testGateway } from '../../testing/gateway.ts';
import { RecordingProcessor } from './processor.ts';
import { NO_SPEECH_SUMMARY } from '../summaries/service.ts';
import { AudioDecoder } from '../../pipeline/decode.ts';

test('a recording without speech: processing succeeds, empty transcript, the no-speech summary, summary.completed', async () => {
  const gw = testGateway();
  try {
    const { meetings, config, summaries, bus } = gw.deps;
    const events: string[] = [];
    const unsubscribe = bus.subscribe((e) => events.push(e.event));
    const meeting = meetings.create({
      title: 'muted microphone',
      created_at: new Date().toISOString(),
      source: 'recording',
      segments: [],
      summary: null,
      audio: true,
    });
    let recognized = false;
    const settled: string[] = [];
    const processor = new RecordingProcessor({
      transcription: {
        meetings,
        summaries,
        media: gw.deps.media,
        settings: () => config.transcriptionSettings(),
        parts: {
          decoder: new AudioDecoder(),
          detectSpeech: () => [],
          recognizerFor: () => ({
            name: 'never',
            available: () => Promise.resolve(true),
            transcribe: () => {
              recognized = true;
              return Promise.resolve([]);
            },
          }),
          diarize: () => Promise.resolve([]),
          assignSpeakers: () => [],
        },
      },
      onSettled: (id) => settled.push(id),
    });
    processor.enqueue(meeting.id);
    await processor.idle();
    unsubscribe();
    const view = processor.view(meeting.id);
    assert.equal(view?.state, 'succeeded', JSON.stringify(view));
    assert.equal(view?.stage, 'done');
    assert.deepEqual(settled, [meeting.id]);
    assert.equal(recognized, false, 'nothing to recognize');
    assert.deepEqual(meetings.transcript(meeting.id).segments, []);
    const summary = meetings.summary(meeting.id);
    assert.equal(summary.status, 'ready');
    assert.equal(summary.result?.text, NO_SPEECH_SUMMARY);
    assert.ok(events.includes('transcript.updated') && events.includes('summary.completed'), events.join(', '));
  } finally {
    gw.close();
  }
});
