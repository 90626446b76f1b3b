/**
 * A pipeline whose stages do what a test tells them, for unit tests of the
 * job machinery (states, events, pause, cancel, retry, waits). The real
 * stages are tested on their own and end to end by the import tests.
 *
 * Each stage can be held at a gate: it loops on control.checkpoint() until
 * the test opens the gate, so pause, resume and cancel meet a running stage.
 */
import type { PipelineParts } from '../real-pipeline.ts';
import { PIPELINE_SAMPLE_RATE, type RecognizedWord, type StageControl, type StageError, type Summarizer } from '../pipeline/types.ts';

export class Gate {
  #open = false;
  #waiters: (() => void)[] = [];
  /** How many times a stage has reached this gate. */
  reached = 0;

  open(): void {
    this.#open = true;
    for (const w of this.#waiters.splice(0)) w();
  }

  async pass(control: StageControl): Promise<void> {
    this.reached += 1;
    while (!this.#open) {
      await control.checkpoint();
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 5);
      });
    }
    await control.checkpoint();
  }
}

export interface Script {
  /** Words the recognizer returns. */
  words: RecognizedWord[];
  /** Held before recognition / diarization finish, when set. */
  recognizeGate?: Gate;
  diarizeGate?: Gate;
  /** Makes decoding fail with this StageError. */
  decodeError?: StageError;
  /** Replaces the summarizers (regeneration tests); the real ones otherwise. */
  summarizer?: Summarizer;
}

export function scriptedPipeline(script: Script): Partial<PipelineParts> {
  const summarizer = script.summarizer;
  return {
    ...(summarizer !== undefined
      ? {
          summarizers: {
            byModel: () => summarizer,
            isTemplate: (id: string) => ['daily_standup', 'meeting_notes'].includes(id),
            templates: ['daily_standup', 'meeting_notes'],
          },
        }
      : {}),
    decoder: {
      async decode(_file, _ext, control) {
        if (script.decodeError !== undefined) throw script.decodeError;
        control.progress(1);
        const seconds = Math.max(1, ...script.words.map((w) => w.end));
        return { sampleRate: PIPELINE_SAMPLE_RATE, samples: new Float32Array(seconds * PIPELINE_SAMPLE_RATE), durationSeconds: seconds };
      },
    },
    detectSpeech: (audio) => [{ start: 0, end: audio.durationSeconds }],
    recognizerFor: () => ({
      name: 'scripted',
      available: () => Promise.resolve(true),
      async transcribe(_audio, _regions, _options, control) {
        if (script.recognizeGate !== undefined) await script.recognizeGate.pass(control);
        return script.words;
      },
    }),
    checkRecognizer: (provider) => {
      if (provider !== undefined && provider !== 'scripted') throw new Error(`unknown provider ${provider}`);
    },
    async diarize(_audio, _regions, _settings, control) {
      if (script.diarizeGate !== undefined) await script.diarizeGate.pass(control);
      return [{ speaker: 'S1', start: 0, end: 1e9 }];
    },
    assignSpeakers: (words) => words.map((w, i) => (i % 2 === 0 || w.start < 0 ? 'S1' : 'S2')),
  };
}

export const SAMPLE_WORDS: RecognizedWord[] = [
  { text: 'yesterday', start: 0.1, end: 0.5, confidence: 0.9 },
  { text: 'we', start: 0.6, end: 0.7, confidence: 0.9 },
  { text: 'finished', start: 0.8, end: 1.2, confidence: 0.8 },
  { text: 'the', start: 1.3, end: 1.4, confidence: 0.9 },
  { text: 'budget', start: 1.5, end: 1.9, confidence: 0.7 },
];
