/**
 * What each kind of job does, on the one transcription path (transcribe.ts):
 *
 *   import           transcription → meeting → summary
 *   retranscription  the same, on the meeting's recording, replacing its transcript
 *   diarization      the same stages without recognition, re-attributing the existing words
 *
 * Progress: the transcription's stages up to 90 % (TRANSCRIPTION_STAGES),
 * saving 90–95 %, summary 95–100 %.
 *
 * An import without speech (silence, a tone, music) still becomes a meeting:
 * empty transcript, its recording, a summary saying no speech was found
 * (decision 031). A retranscription without speech fails and keeps the
 * transcript the meeting had.
 */
import type { ConfigService } from '../config/index.ts';
import type { JobRunners, JobWork } from './service.ts';
import type { MeetingsService } from '../meetings/index.ts';
import { NO_SPEECH_SUMMARY, type SummaryService } from '../summaries/index.ts';
import type { EventBus } from '../../kernel/events.ts';
import type { JobRecord } from './repo.ts';
import { transcribe, type TranscriptionParts } from '../../pipeline/transcribe.ts';
import { StageError, type ImportExtension, type RecognizedWord } from '../../pipeline/types.ts';

export interface PipelineDeps extends Omit<TranscriptionParts, 'config'> {
  config: ConfigService;
  meetings: MeetingsService;
  summaries: SummaryService;
  bus: EventBus;
  /** Absolute path of a job's upload. */
  uploadPath(job: JobRecord): string | null;
  now(): Date;
}

export { buildSegments } from '../../pipeline/transcribe.ts';

function extOf(job: JobRecord): ImportExtension {
  return (job.params.ext ?? 'wav') as ImportExtension;
}

export function createJobRunners(deps: PipelineDeps): JobRunners {
  const importRunner: JobWork = async (job, control, stage, linkMeeting) => {
    const file = deps.uploadPath(job);
    if (file === null) throw new StageError('the uploaded file of this import is gone', { retryable: false });
    const language = job.params.language ?? 'en';
    const result = await transcribe(
      deps,
      { file, ext: extOf(job), language, provider: job.params.provider, model: job.params.model, speakerCount: job.params.speaker_count },
      control,
      stage,
    );

    stage('saving');
    const meeting = deps.meetings.create({
      title: job.params.title ?? `Imported meeting ${deps.now().toISOString().slice(0, 16).replace('T', ' ')}`,
      created_at: deps.now().toISOString(),
      source: 'import',
      language,
      segments: result.segments,
      // Saved with the meeting, so no moment exists where an import holds neither words nor the reason why.
      summary: result.speechFound ? null : { text: NO_SPEECH_SUMMARY },
      audio: false,
      recording: { path: file, ext: extOf(job) },
      duration_seconds: result.audio.durationSeconds,
    });
    linkMeeting(meeting.id);
    control.progress(0.95);
    deps.bus.publish('transcript.updated', { kind: 'meeting', id: meeting.id });

    stage('summarizing');
    if (result.speechFound) await deps.summaries.generateAutomatically(meeting.id);
    else deps.bus.publish('summary.completed', { kind: 'meeting', id: meeting.id }, {});
    return { meetingId: meeting.id };
  };

  const retranscriptionRunner: JobWork = async (job, control, stage) => {
    const meetingId = requireMeeting(deps, job);
    const recording = deps.meetings.recordingPath(meetingId);
    if (recording === null) throw new StageError('the meeting has no recording to transcribe again', { retryable: false });
    const ext = (recording.split('.').pop() ?? 'wav') as ImportExtension;
    const language = job.params.language ?? deps.meetings.get(meetingId).language ?? 'en';
    const result = await transcribe(
      deps,
      { file: recording, ext, language, provider: job.params.provider, model: job.params.model, speakerCount: job.params.speaker_count },
      control,
      stage,
    );
    // The meeting keeps the transcript it has rather than trading it for an empty one.
    if (!result.speechFound) throw new StageError('no speech was found in the recording; the transcript was kept', { retryable: false });
    stage('saving');
    deps.meetings.replaceTranscript(meetingId, result.segments);
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
    if (words.length === 0)
      throw new StageError('the meeting has an empty transcript: there is nothing to attribute', { retryable: false });
    const ext = (recording.split('.').pop() ?? 'wav') as ImportExtension;
    const language = deps.meetings.get(meetingId).language ?? 'en';
    const result = await transcribe(
      deps,
      { file: recording, ext, language, speakerCount: job.params.speaker_count, words },
      control,
      stage,
    );
    stage('saving');
    deps.meetings.replaceTranscript(meetingId, result.segments);
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
