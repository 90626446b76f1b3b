/**
 * The one transcription path: what an import, a retranscription, a
 * diarization job and a stopped recording all run.
 *
 *   decode → enhance (optional) → voice activity → recognition → segments
 *                                                  → diarization ↗ (beside recognition)
 *
 * Voice activity and recognition read the enhanced signal; the diarizer
 * reads the decoded one, cut by the same speech regions: the denoiser's
 * output makes voices alike in babble (one speaker found for two in the hard
 * scene), while the raw voices stay apart (decision 069).
 *
 * Stages and their share of the caller's progress are listed once, in
 * TRANSCRIPTION_STAGE_NAMES and TRANSCRIPTION_STAGES. The caller owns what comes after (saving, summary):
 * the transcription covers 0 … TRANSCRIPTION_END of its progress.
 *
 * Audio without speech is not an error here: the result says
 * `speechFound: false` with no words, and the caller decides (an import keeps
 * the meeting and its recording; a retranscription keeps the old transcript).
 * Bytes that cannot be decoded still throw the decoder's StageError.
 *
 * The settings come with the request (TranscriptionSettings): the caller
 * reads the configuration once, before the run, so the pipeline imports no
 * feature and a PUT /v1/config during a run does not change it half-way
 * (docs/decisions/085-one-post-transcription-path.md).
 */
import type { Diarization } from './diarize.ts';
import type { FrameStats } from './diarize/features.ts';
import type { EnhancementSettings } from './enhance/front-end.ts';
import type { Voiceprint } from './voiceprint.ts';
import type {
  AudioSource,
  Decoder,
  DiarizationSettings,
  PcmAudio,
  RecognizedWord,
  Recognizer,
  SpeakerTurn,
  SpeechRegion,
  StageControl,
  VadSettings,
} from './types.ts';

/**
 * An optional front end between decoding and voice activity (noise
 * reduction, dereverberation). It returns audio in the pipeline format of
 * the same length, so word times stay those of the recording.
 */
export type Enhancer = (audio: PcmAudio, settings: EnhancementSettings, control: StageControl) => Promise<PcmAudio>;

/** The parts the transcription runs; the gateway passes the real ones, unit tests their own. */
export interface TranscriptionParts {
  decoder: Decoder;
  /** Absent: no enhancement stage runs. */
  enhance?: Enhancer | undefined;
  detectSpeech(audio: PcmAudio, settings: VadSettings): SpeechRegion[];
  recognizerFor(provider: string | undefined, model: string | undefined): Recognizer;
  /** The turns; a diarizer that measured each speaker's voice statistics returns them beside (diarize.ts, diarizeWithVoices). */
  diarize(
    audio: PcmAudio,
    regions: readonly SpeechRegion[],
    settings: DiarizationSettings,
    control: StageControl,
  ): Promise<SpeakerTurn[] | Diarization>;
  assignSpeakers(words: readonly { start: number; end: number }[], turns: readonly SpeakerTurn[]): string[];
  /** Stages run, in order, on every transcription that found speech, once its speakers are assigned (after-transcription.ts). */
  afterTranscription?: readonly TranscriptStage[] | undefined;
}

/**
 * A processing stage added after the transcription of an import, a
 * retranscription, a diarization or a recording: it receives the finished
 * transcription and returns it, changed or not, before it is stored. It runs
 * within the last stage the owner shows (diarizing) and under the run
 * queue's control: a stage that runs a child process hands it to
 * `control.track()`, pure code calls `control.checkpoint()` between chunks.
 * Registered in after-transcription.ts (decision 119).
 */
export interface TranscriptStage {
  readonly name: string;
  run(transcription: Transcription, control: StageControl, settings: TranscriptionSettings): Promise<Transcription>;
}

/** The configuration a transcription runs with, read by the caller before it starts (features/config: transcriptionSettings()). */
export interface TranscriptionSettings {
  /** The vad section: voice activity, and the enhancement front end's switches. */
  vad: VadSettings & EnhancementSettings;
  diarization: DiarizationSettings;
  /** The custom-words section's words, empty while it is off. */
  customWords: readonly string[];
  /** The initial-prompt section's prompt, empty while it is off. */
  initialPrompt: string;
  /**
   * The speaker-identification section and the enrolled voiceprints
   * (features/speakers, decision 148); absent: no identification. The
   * voiceprints are behind a function so that settings serialised or logged
   * never carry them.
   */
  speakerIdentification?: {
    enabled: boolean;
    matchThreshold: number;
    voiceprints: () => readonly { name: string; print: Voiceprint }[];
  };
}

/** A transcript segment as the transcription makes it (features/meetings stores it as given). */
interface TranscribedSegment {
  speaker: string;
  start: number;
  end: number;
  text: string;
  words: { text: string; start: number; end: number; confidence: number }[];
}

/** The stages, in order (job and recording stages include them). */
export const TRANSCRIPTION_STAGE_NAMES = ['decoding', 'enhancing', 'detecting_speech', 'transcribing', 'diarizing'] as const;
export type TranscriptionStage = (typeof TRANSCRIPTION_STAGE_NAMES)[number];
/** The range of overall progress each stage reports into. */
export const TRANSCRIPTION_STAGES: Readonly<Record<TranscriptionStage, { from: number; to: number }>> = {
  decoding: { from: 0, to: 0.12 },
  enhancing: { from: 0.12, to: 0.18 },
  detecting_speech: { from: 0.18, to: 0.2 },
  transcribing: { from: 0.2, to: 0.75 },
  diarizing: { from: 0.75, to: 0.9 },
};
/** Where the transcription's progress ends; saving and the summary share the rest. */
export const TRANSCRIPTION_END = 0.9;

export interface TranscriptionRequest {
  /** The audio, from the media store by id. */
  audio: AudioSource;
  language: string;
  settings: TranscriptionSettings;
  /** Recognizer provider and model (import parameters); undefined for the defaults. */
  provider?: string | undefined;
  model?: string | undefined;
  /** A fixed speaker count for this job, over the diarization section's. */
  speakerCount?: number | undefined;
  /**
   * Words already in the transcript (a diarization job): recognition is
   * skipped and only their speakers are worked out again.
   */
  words?: readonly RecognizedWord[] | undefined;
}

export interface Transcription {
  audio: PcmAudio;
  /** False when voice activity found no speech or the recognizer no words. */
  speechFound: boolean;
  words: RecognizedWord[];
  /** Speaker key of each word. */
  speakers: string[];
  segments: TranscribedSegment[];
  /**
   * Each speaker key's voice statistics as the diarizer measured them, when
   * it read `audio` itself (no enhancement changed it) and gave them: the
   * identification stage uses them instead of analysing the audio again
   * (decision 171). A stage that changes speaker keys drops them.
   */
  voices?: Readonly<Record<string, FrameStats>>;
  /** Names found for speaker keys by identification (identify-speakers.ts); stored as identified labels. */
  speakerNames?: Readonly<Record<string, string>>;
}

/** Splits a range of the overall progress into a stage's own 0..1. */
function progressSpan(control: StageControl, from: number, to: number): StageControl {
  return { ...control, progress: (f) => control.progress(from + (to - from) * Math.min(1, Math.max(0, f))) };
}

function stageControl(control: StageControl, stage: TranscriptionStage): StageControl {
  const range = TRANSCRIPTION_STAGES[stage];
  return progressSpan(control, range.from, range.to);
}

export async function transcribe(
  parts: TranscriptionParts,
  request: TranscriptionRequest,
  control: StageControl,
  onStage: (stage: TranscriptionStage) => void,
): Promise<Transcription> {
  const enter = (stage: TranscriptionStage): StageControl => {
    onStage(stage);
    return stageControl(control, stage);
  };

  let audio = await parts.decoder.decode(request.audio.path, request.audio.ext, enter('decoding'));
  await control.checkpoint();
  // Kept for the diarizer (see above); the enhancer returns a new array.
  const decoded = audio;

  if (parts.enhance !== undefined) {
    const stage = enter('enhancing');
    audio = await parts.enhance(audio, request.settings.vad, stage);
    stage.progress(1);
    await control.checkpoint();
  }

  const vad = enter('detecting_speech');
  const regions = parts.detectSpeech(audio, request.settings.vad);
  vad.progress(1);
  await control.checkpoint();

  const diarizationSettings: DiarizationSettings = { ...request.settings.diarization };
  if (request.speakerCount !== undefined) diarizationSettings.speaker_count = request.speakerCount;
  let words: RecognizedWord[];
  let turns: SpeakerTurn[] = [];
  let voices: Diarization['voices'];
  if (request.words !== undefined) {
    // A diarization job: the words are given, only their speakers are worked out.
    words = [...request.words];
    if (words.length > 0) {
      const diarization = enter('diarizing');
      ({ turns, voices } = asDiarization(await parts.diarize(decoded, regions, diarizationSettings, diarization)));
      diarization.progress(1);
      await control.checkpoint();
    }
  } else if (regions.length === 0) {
    words = [];
  } else {
    ({ words, turns, voices } = await recognizeBesideDiarization(
      parts,
      request,
      { audio, decoded, regions, settings: diarizationSettings },
      control,
      enter,
    ));
  }
  if (words.length === 0) return { audio, speechFound: false, words: [], speakers: [], segments: [] };

  const speakers = parts.assignSpeakers(words, turns);
  let transcription: Transcription = { audio, speechFound: true, words, speakers, segments: buildSegments(words, speakers) };
  // The diarizer measured the decoded audio; the stages read `audio`: the same only when no enhancement changed it.
  if (voices !== undefined && audio === decoded) transcription.voices = voices;
  for (const stage of parts.afterTranscription ?? []) {
    transcription = await stage.run(transcription, control, request.settings);
    await control.checkpoint();
  }
  return transcription;
}

/**
 * Recognition, with the diarizer beside it: both read the same speech
 * regions and neither needs the other's result, so the diarizer (on the
 * pipeline's worker thread) runs while the recognizer's processes decode
 * (decision 094). It starts once the recognizer has started its first
 * process: pocketsphinx builds its adapted language model on the same
 * worker thread before that, and must not queue behind the diarizer. A
 * recognizer that starts no process here (the OpenAI-compatible endpoint)
 * is followed by the diarizer, as before.
 *
 * The job sees the stages in their usual order: `transcribing` until the
 * words are in, then `diarizing` until the turns are (the diarizer's
 * progress is held until then, so the job's progress never goes back). A
 * failure of either stops the other, and the call returns only once both
 * have ended; a cancel stops both at once. Without words, the diarizer's
 * work is dropped.
 */
async function recognizeBesideDiarization(
  parts: TranscriptionParts,
  request: TranscriptionRequest,
  input: { audio: PcmAudio; decoded: PcmAudio; regions: readonly SpeechRegion[]; settings: DiarizationSettings },
  control: StageControl,
  enter: (stage: TranscriptionStage) => StageControl,
): Promise<Diarization & { words: RecognizedWord[] }> {
  const recognition = enter('transcribing');
  const recognizer = parts.recognizerFor(request.provider, request.model);
  const stop = new AbortController();
  const signal = AbortSignal.any([control.signal, stop.signal]);

  let heldProgress = 0;
  let diarizationProgress = (fraction: number): void => {
    heldProgress = Math.max(heldProgress, fraction);
  };
  let diarizing: Promise<Diarization> | null = null;
  const diarizationFailures: unknown[] = [];
  const startDiarizing = (): Promise<Diarization> => {
    diarizing ??= parts
      .diarize(input.decoded, input.regions, input.settings, { ...control, signal, progress: (f) => diarizationProgress(f) })
      .then(asDiarization)
      .catch((error: unknown) => {
        if (!stop.signal.aborted) diarizationFailures.push(error);
        stop.abort();
        throw error;
      });
    // Awaited below; until then a failure must not count as unhandled.
    void diarizing.catch(() => undefined);
    return diarizing;
  };
  const stopDiarizing = async () => {
    stop.abort();
    await diarizing?.catch(() => undefined);
  };

  let words: RecognizedWord[];
  try {
    words = await recognizer.transcribe(
      input.audio,
      input.regions,
      {
        language: request.language,
        customWords: request.settings.customWords,
        initialPrompt: request.settings.initialPrompt,
        ...(request.model !== undefined ? { model: request.model } : {}),
      },
      {
        ...recognition,
        signal,
        track: (child) => {
          const untrack = recognition.track(child);
          void startDiarizing();
          return untrack;
        },
      },
    );
    recognition.progress(1);
    await control.checkpoint();
  } catch (err) {
    await stopDiarizing();
    // The diarizer's failure stopped the recognizer: say what failed, not that it stopped.
    if (diarizationFailures.length > 0 && !control.signal.aborted) throw diarizationFailures[0];
    throw err;
  }
  if (words.length === 0) {
    await stopDiarizing();
    return { words, turns: [] };
  }

  const diarization = enter('diarizing');
  diarizationProgress = (fraction) => diarization.progress(fraction);
  diarization.progress(heldProgress);
  const { turns, voices } = await startDiarizing();
  diarization.progress(1);
  await control.checkpoint();
  return { words, turns, ...(voices !== undefined ? { voices } : {}) };
}

/** A diarizer's answer as turns and, when it gave them, voices. */
function asDiarization(result: SpeakerTurn[] | Diarization): Diarization {
  return Array.isArray(result) ? { turns: result } : result;
}

/** A gap this long, or a change of speaker, starts a new segment. */
const SEGMENT_GAP_SECONDS = 1.0;
/** Segments are cut at about this length so search hits point somewhere precise. */
const SEGMENT_MAX_SECONDS = 30;

/** Groups recognized words into transcript segments by speaker and pauses. */
function buildSegments(words: readonly RecognizedWord[], speakers: readonly string[]): TranscribedSegment[] {
  const segments: TranscribedSegment[] = [];
  let current: TranscribedSegment | null = null;
  words.forEach((w, i) => {
    const speaker = speakers[i] ?? 'S1';
    const startsNew =
      current === null ||
      current.speaker !== speaker ||
      w.start - current.end > SEGMENT_GAP_SECONDS ||
      w.end - current.start > SEGMENT_MAX_SECONDS;
    if (startsNew) {
      current = { speaker, start: w.start, end: w.end, text: w.text, words: [] };
      segments.push(current);
    } else if (current !== null) {
      current.end = w.end;
      current.text += ` ${w.text}`;
    }
    current!.words.push({ text: w.text, start: w.start, end: w.end, confidence: w.confidence });
  });
  return segments;
}
