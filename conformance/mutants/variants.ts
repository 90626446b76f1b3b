/**
 * Conforming variants: proxies (or run settings) that turn the reference into
 * another target a conforming implementer may well run, one that differs where
 * the spec leaves the outcome to the target (what its recognizer hears, how
 * long its jobs take, how its webhook receivers answer, the open choices of
 * API.md). The suite's self-test runs the WHOLE non-slow suite against each
 * (run-reference-variants.ts): none may FAIL or ERROR. Mutants must be killed;
 * variants must never be failed (docs/decisions/073-conformance-conforming-variants.md).
 */
import { readFileSync } from 'node:fs';
import { speechPath } from '../harness/audio.ts';
import { ALTERNATIVES } from './alternatives.ts';
import { slowTarget } from './slow-target.ts';
import { combine, slowSummarizer } from './slow-background.ts';
import { slowRecorder } from './slow-recorder.ts';
import type { Mutant } from './proxy.ts';
import { parseWavHeader, wavSampleRewriter } from './wav-rewrite.ts';

export interface Variant extends Omit<Mutant, 'expect'> {
  /** Takes minutes rather than about one (the runner runs these only with --slow). */
  slow: boolean;
  /** Run settings of the suite itself (a variant of the receiver rather than of the target). */
  session?: { receiverAnswerDelayMs?: number; receiverArrivalDelayMs?: number };
}

/** The shipped speech's samples (16 kHz mono), the words the fixed recognizer hears in any sound. */
let speechSamples: { samples: Int16Array; sampleRate: number } | null = null;
function fixedSpeech(): { samples: Int16Array; sampleRate: number } {
  if (speechSamples === null) {
    const bytes = readFileSync(speechPath('tiny'));
    const parsed = parseWavHeader(bytes);
    if (parsed.kind !== 'pcm') throw new Error('conformance/audio/tiny.wav is not a 16-bit PCM WAV');
    const data = Buffer.from(bytes.subarray(parsed.dataStart, parsed.dataStart + parsed.dataBytes));
    speechSamples = { samples: new Int16Array(data.buffer, data.byteOffset, data.length / 2), sampleRate: parsed.format.sampleRate };
  }
  return speechSamples;
}

/** A tenth of a second at 16 kHz: the block the fixed recognizer calls sound or silence. */
const BLOCK = 1600;
/** A sample above this is sound (a tone at 8000, speech well above; the suite's silence is 0). */
const SOUND = 64;

/** The only event stream a variant rewrites (read whole, then handed on); every other stream passes as it arrives. */
const JOB_WAIT = /^\/v1\/jobs\/[^/]+\/wait$/;
/** The waits the slowed variants hold until the slowed work ends: the job, summary-operation and recording waits. */
const EVERY_WAIT = /^\/v1\/(jobs\/[^/]+\/wait|meetings\/[^/]+\/summary\/operations\/[^/]+\/wait|recording\/wait)$/;

export const VARIANTS: Variant[] = [
  {
    name: 'fixed-text-recognizer',
    slow: false,
    description:
      'a recognizer that hears the same words (the shipped speech, from its start) in any non-silent audio: a stub or ' +
      'placeholder recognizer; every imported transcript, search hit, export and event shows those words',
    // The target's recognizer is modelled at its input: every WAV upload's sound is replaced, sample for
    // sample, by the shipped speech at the same place (looped), and silence stays silence. The reference
    // then transcribes, summarizes, indexes and announces those words everywhere it would, consistently.
    uploadBody: () =>
      wavSampleRewriter((samples, at, format) => {
        const speech = fixedSpeech();
        if (format.channels !== 1 || format.sampleRate !== speech.sampleRate) return;
        for (let start = 0; start < samples.length;) {
          const blockEnd = Math.min(samples.length, start + BLOCK - ((at + start) % BLOCK));
          let sound = false;
          for (let i = start; i < blockEnd && !sound; i++) sound = Math.abs(samples[i]!) > SOUND;
          for (let i = start; i < blockEnd; i++) samples[i] = sound ? speech.samples[(at + i) % speech.samples.length]! : 0;
          start = blockEnd;
        }
      }),
  },
  {
    name: 'deaf-recognizer',
    slow: false,
    description:
      'a recognizer that returns nothing for speech: every decodable import makes a meeting with an empty transcript ' +
      '(and the no-speech summary); undecodable bytes still fail',
    // Modelled at the input as well: every sample of a WAV upload becomes silence, keeping its length.
    uploadBody: () => wavSampleRewriter((samples) => samples.fill(0)),
  },
  {
    name: 'slow-target',
    slow: true,
    description:
      'a target ten times slower at everything the suite waits on: every job stage (imports, diarization: ' +
      'GET /v1/jobs/{id}, the job list and the job wait show each job as the reference had it at a tenth of its age, ' +
      'slow-target.ts), every summary regeneration (busy ten times as long, with the 409 the reference gives ' +
      "while busy: slow-background.ts), the recording's start and stop (starting and stopping ten times as long, " +
      'every read, refusal and wait answered from one state: slow-recorder.ts), and every webhook delivery arriving ' +
      "2 s late; a caller's cancel, pause, resume or retry of a job acts at once",
    ...combine(slowTarget(), slowSummarizer(), slowRecorder()),
    bufferedStreams: EVERY_WAIT,
    session: { receiverArrivalDelayMs: 2000 },
  },
  {
    name: 'slow-summarizer',
    slow: false,
    description:
      'a target whose summary generation is ten times slower, everything else as the reference: a second ' +
      'regeneration that meets the first still running is refused with 409 summary_generating (issue 36)',
    ...slowSummarizer(),
    bufferedStreams: EVERY_WAIT,
  },
  {
    name: 'slow-webhook-receiver',
    slow: false,
    description:
      "the suite's webhook receiver answers every delivery 2 s late (a receiver behind a slow network or a busy " +
      'handler); a conforming target waits for the answer or retries',
    session: { receiverAnswerDelayMs: 2000 },
  },
  {
    name: 'open-choices-other-way',
    slow: false,
    description:
      'the open choices of API.md a proxy can express, taken the other way than the reference: an import of bytes ' +
      'the target cannot decode succeeds as a meeting with an empty transcript (API.md names no error for them)',
    ...otherWay(),
    bufferedStreams: JOB_WAIT,
  },
];

/**
 * The open choices of API.md taken the other way. Only one survives the target's own manifest: other stage
 * names, more fields, or `{}` for the actions whose response body is "not shown" each contradict the
 * schemas GET /openapi.json publishes (a stage enum, additionalProperties false, required fields), which
 * openapi/manifest-exchanges rightly holds every answer to (decision 073 lists them with why).
 */
function otherWay(): Pick<Variant, 'response' | 'uploadAnswer'> {
  const kept = ALTERNATIVES.find((a) => a.name === 'no-speech-import-makes-empty-meeting');
  if (kept?.response === undefined) throw new Error('alternatives.ts lost no-speech-import-makes-empty-meeting');
  return {
    response: kept.response.bind(kept),
    ...(kept.uploadAnswer === undefined ? {} : { uploadAnswer: kept.uploadAnswer.bind(kept) }),
  };
}
