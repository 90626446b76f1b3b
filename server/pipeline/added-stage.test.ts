/**
 * Adding a processing stage to imports and recordings is one file and one
 * line (decision 119). This file is the stage: `capitals` writes every word
 * of the transcript in capital letters, checking its control as a real stage
 * would; its registration is the one line that lists it after the registered
 * stages (AFTER_TRANSCRIPTION), here in the test gateway's pipeline, where a
 * real stage's line goes into after-transcription.ts. An import job and a
 * stopped recording's processing both run it, on the one run queue.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { testGateway } from '../testing/gateway.ts';
import { SAMPLE_WORDS, scriptedPipeline } from '../testing/scripted-pipeline.ts';
import { AFTER_TRANSCRIPTION } from './after-transcription.ts';
import type { TranscriptStage } from './transcribe.ts';

/** The added stage. */
const capitals: TranscriptStage = {
  name: 'capitals',
  async run(transcription, control) {
    await control.checkpoint();
    return {
      ...transcription,
      segments: transcription.segments.map((s) => ({
        ...s,
        text: s.text.toUpperCase(),
        words: s.words.map((w) => ({ ...w, text: w.text.toUpperCase() })),
      })),
    };
  },
};

test('a stage registered with one line runs in every import and every recording', async () => {
  const gw = testGateway({
    pipeline: { ...scriptedPipeline({ words: SAMPLE_WORDS }), afterTranscription: [...AFTER_TRANSCRIPTION, capitals] },
  });
  try {
    const { jobs, meetings, recording } = gw.deps;
    // An import.
    writeFileSync(join(gw.deps.media.folders.uploads, 'added-stage.wav'), 'RIFF....WAVE');
    const job = jobs.createImport('job_added_stage', 'added-stage.wav', { ext: 'wav', title: 'an import' });
    await jobs.idle();
    const imported = jobs.get(job.id);
    assert.equal(imported.state, 'succeeded', imported.error ?? '');
    assert.equal(
      meetings
        .transcript(imported.meeting_id!)
        .segments.map((s) => s.text)
        .join(' '),
      'YESTERDAY WE FINISHED THE BUDGET',
    );

    // A recording whose processing a stop left pending: the next start processes it.
    const recorded = meetings.create({
      title: 'a recording',
      created_at: new Date().toISOString(),
      source: 'recording',
      segments: [],
      summary: null,
      audio: true,
    });
    gw.deps.media.markPending(recorded.id, 'rec_added_stage');
    recording.recover();
    await recording.processingIdle();
    assert.equal(recording.view().processing?.state, 'succeeded', JSON.stringify(recording.view().processing));
    assert.equal(
      meetings
        .transcript(recorded.id)
        .segments.map((s) => s.text)
        .join(' '),
      'YESTERDAY WE FINISHED THE BUDGET',
    );
  } finally {
    gw.close();
  }
});
