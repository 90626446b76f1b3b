/**
 * What each kind of job does, stage by stage:
 *
 *   import           decode → voice activity → recognition → diarization → meeting → summary
 *   retranscription  the same, on the meeting's recording, replacing its transcript
 *   diarization      decode → voice activity → diarization, re-attributing the existing words
 *
 * Progress: decode 0–15 %, voice activity 15–20 %, recognition 20–75 %,
 * diarization 75–90 %, saving 90–95 %, summary 95–100 %.
 */
import type { ConfigService } from '../domain/config-service.ts';
import type { JobRunners, JobWork } from '../domain/jobs-service.ts';
import type { MeetingsService, SeedSegment } from '../domain/meetings-service.ts';
import type { SummaryService } from '../domain/summary-service.ts';
import type { EventBus } from '../events.ts';
import type { JobRecord } from '../store/jobs-repo.ts';
import {
  StageError,
  type Decoder,
  type DiarizationSettings,
  type ImportExtension,
  type PcmAudio,
  type RecognizedWord,
  type Recognizer,
  type SpeakerTurn,
  type SpeechRegion,
  type StageControl,
  type VadSettings,
} from './types.ts';

export interface PipelineDeps {
  decoder: Decoder;
  detectSpeech(audio: PcmAudio, settings: VadSettings): SpeechRegion[];
  diarize(audio: PcmAudio, regions: readonly SpeechRegion[], settings: DiarizationSettings, control: StageControl): Promise<SpeakerTurn[]>;
  assignSpeakers(words: readonly { start: number; end: number }[], turns: readonly SpeakerTurn[]): string[];
  recognizerFor(provider: string | undefined, model: string | undefined): Recognizer;
  config: ConfigService;
  meetings: MeetingsService;
  summaries: SummaryService;
  bus: EventBus;
  /** Absolute path of a job's upload. */
  uploadPath(job: JobRecord): string | null;
  now(): Date;
}

/** A gap this long, or a change of speaker, starts a new segment. */
const SEGMENT_GAP_SECONDS = 1.0;
/** Segments are cut at about this length so search hits point somewhere precise. */
const SEGMENT_MAX_SECONDS = 30;

/** Splits a range of the overall progress into a stage's own 0..1. */
function span(control: StageControl, from: number, to: number): StageControl {
  return { ...control, progress: (f) => control.progress(from + (to - from) * Math.min(1, Math.max(0, f))) };
}

/** Groups recognized words into transcript segments by speaker and pauses. */
export function buildSegments(words: readonly RecognizedWord[], speakers: readonly string[]): SeedSegment[] {
  const segments: SeedSegment[] = [];
  let current: SeedSegment | null = null;
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
    current!.words!.push({ text: w.text, start: w.start, end: w.end, confidence: w.confidence });
  });
  return segments;
}

async function recognize(
  deps: PipelineDeps,
  job: JobRecord,
  file: string,
  ext: ImportExtension,
  control: StageControl,
  stage: Parameters<JobWork>[2],
  language: string,
): Promise<{ audio: PcmAudio; words: RecognizedWord[]; speakers: string[] }> {
  stage('decoding');
  const audio = await deps.decoder.decode(file, ext, span(control, 0, 0.15));
  await control.checkpoint();

  stage('detecting_speech');
  const regions = deps.detectSpeech(audio, deps.config.effective('vad') as unknown as VadSettings);
  control.progress(0.2);
  if (regions.length === 0) throw new StageError('no speech was found in the recording', { retryable: false });
  await control.checkpoint();

  stage('transcribing');
  const customWords = deps.config.effective('custom-words') as { enabled: boolean; words: string[] };
  const prompt = deps.config.effective('initial-prompt') as { enabled: boolean; prompt: string };
  const recognizer = deps.recognizerFor(job.params.provider, job.params.model);
  const words = await recognizer.transcribe(
    audio,
    regions,
    {
      language,
      customWords: customWords.enabled ? customWords.words : [],
      initialPrompt: prompt.enabled ? prompt.prompt : '',
      ...(job.params.model !== undefined ? { model: job.params.model } : {}),
    },
    span(control, 0.2, 0.75),
  );
  if (words.length === 0) throw new StageError('no words were recognized in the recording', { retryable: false });
  await control.checkpoint();

  stage('diarizing');
  const speakers = await attribute(deps, audio, regions, words, job.params.speaker_count, span(control, 0.75, 0.9));
  return { audio, words, speakers };
}

async function attribute(
  deps: PipelineDeps,
  audio: PcmAudio,
  regions: readonly SpeechRegion[],
  words: readonly { start: number; end: number }[],
  speakerCount: number | undefined,
  control: StageControl,
): Promise<string[]> {
  const settings = { ...(deps.config.effective('diarization') as unknown as DiarizationSettings) };
  if (speakerCount !== undefined) settings.speaker_count = speakerCount;
  const turns = await deps.diarize(audio, regions, settings, control);
  return deps.assignSpeakers(words, turns);
}

function extOf(job: JobRecord): ImportExtension {
  return (job.params.ext ?? 'wav') as ImportExtension;
}

export function createJobRunners(deps: PipelineDeps): JobRunners {
  const importRunner: JobWork = async (job, control, stage, linkMeeting) => {
    const file = deps.uploadPath(job);
    if (file === null) throw new StageError('the uploaded file of this import is gone', { retryable: false });
    const language = job.params.language ?? 'en';
    const { audio, words, speakers } = await recognize(deps, job, file, extOf(job), control, stage, language);

    stage('saving');
    const meeting = deps.meetings.create({
      title: job.params.title ?? `Imported meeting ${deps.now().toISOString().slice(0, 16).replace('T', ' ')}`,
      created_at: deps.now().toISOString(),
      source: 'import',
      language,
      segments: buildSegments(words, speakers),
      summary: null,
      audio: false,
      recording: { path: file, ext: extOf(job) },
      duration_seconds: audio.durationSeconds,
    });
    linkMeeting(meeting.id);
    control.progress(0.95);
    deps.bus.publish('transcript.updated', { kind: 'meeting', id: meeting.id });

    stage('summarizing');
    await deps.summaries.generateAutomatically(meeting.id);
    return { meetingId: meeting.id };
  };

  const retranscriptionRunner: JobWork = async (job, control, stage) => {
    const meetingId = requireMeeting(deps, job);
    const recording = deps.meetings.recordingPath(meetingId);
    if (recording === null) throw new StageError('the meeting has no recording to transcribe again', { retryable: false });
    const ext = (recording.split('.').pop() ?? 'wav') as ImportExtension;
    const language = job.params.language ?? deps.meetings.get(meetingId).language ?? 'en';
    const { words, speakers } = await recognize(deps, job, recording, ext, control, stage, language);
    stage('saving');
    deps.meetings.replaceTranscript(meetingId, buildSegments(words, speakers));
    deps.bus.publish('transcript.updated', { kind: 'meeting', id: meetingId });
    return { meetingId };
  };

  const diarizationRunner: JobWork = async (job, control, stage) => {
    const meetingId = requireMeeting(deps, job);
    const recording = deps.meetings.recordingPath(meetingId);
    if (recording === null) throw new StageError('the meeting has no recording to diarize', { retryable: false });
    const transcript = deps.meetings.transcript(meetingId);
    const words: RecognizedWord[] = transcript.segments.flatMap((s) =>
      s.words.length > 0
        ? s.words.map((w) => ({ text: w.text, start: w.start, end: w.end, confidence: w.confidence ?? 1 }))
        : [{ text: s.text, start: s.start, end: s.end, confidence: 1 }],
    );
    if (words.length === 0) throw new StageError('the meeting has an empty transcript: there is nothing to attribute', { retryable: false });

    stage('decoding');
    const ext = (recording.split('.').pop() ?? 'wav') as ImportExtension;
    const audio = await deps.decoder.decode(recording, ext, span(control, 0, 0.3));
    await control.checkpoint();
    stage('detecting_speech');
    const regions = deps.detectSpeech(audio, deps.config.effective('vad') as unknown as VadSettings);
    await control.checkpoint();
    stage('diarizing');
    const speakers = await attribute(deps, audio, regions, words, job.params.speaker_count, span(control, 0.35, 0.9));
    stage('saving');
    deps.meetings.replaceTranscript(meetingId, buildSegments(words, speakers));
    deps.bus.publish('transcript.updated', { kind: 'meeting', id: meetingId });
    return { meetingId };
  };

  return { import: importRunner, retranscription: retranscriptionRunner, diarization: diarizationRunner };
}

function requireMeeting(deps: PipelineDeps, job: JobRecord): string {
  if (job.meeting_id === null || !deps.meetings.exists(job.meeting_id)) {
    throw new StageError('the meeting of this job no longer exists', { retryable: false });
  }
  return job.meeting_id;
}
