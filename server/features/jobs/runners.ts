/**
 * What each kind of job does, on the one transcription path (transcribe.ts)
 * and the one way its result is stored (summaries/store-transcription.ts):
 *
 *   import           transcription → meeting → summary
 *   retranscription  the same, on the meeting's recording, replacing its transcript
 *   diarization      the same stages without recognition, re-attributing the existing words
 *
 * Progress: the transcription's stages up to TRANSCRIPTION_END, saving up to
 * SAVED_PROGRESS, the summary the rest.
 *
 * An import without speech (silence, a tone, music) still becomes a meeting:
 * empty transcript, its recording, a summary saying no speech was found
 * (decision 031). A retranscription without speech fails and keeps the
 * transcript the meeting had.
 */
import type { JobRun, JobRunners, JobWork } from './service.ts';
import type { MeetingsService } from '../meetings/index.ts';
import { storeTranscription, type StoreSteps, type StoreTranscriptionDeps } from '../summaries/index.ts';
import type { JobRecord } from './repo.ts';
import { transcribe, type TranscriptionParts, type TranscriptionSettings } from '../../pipeline/transcribe.ts';
import { StageError, type RecognizedWord } from '../../pipeline/types.ts';
import type { MediaStore } from '../../media/media-store.ts';

/** What the runners use: the pipeline's parts, the settings in force when a job starts, and where results go. */
export interface JobRunnerDeps extends StoreTranscriptionDeps {
  parts: TranscriptionParts;
  /** Read as each job starts (features/config: transcriptionSettings()). */
  settings(): TranscriptionSettings;
  meetings: MeetingsService;
  /** The audio a job transcribes, by media id (the media store). */
  media: Pick<MediaStore, 'audio'>;
  now(): Date;
}

export function createJobRunners(deps: JobRunnerDeps): JobRunners {
  const importRunner: JobWork = async (job, run) => {
    const upload = run.upload;
    const audio = upload === null ? null : deps.media.audio({ upload });
    if (upload === null || audio === null) throw new StageError('the uploaded file of this import is gone', { retryable: false });
    const language = job.params.language ?? 'en';
    const result = await transcribe(
      deps.parts,
      {
        audio,
        language,
        settings: deps.settings(),
        provider: job.params.provider,
        model: job.params.model,
        speakerCount: job.params.speaker_count,
      },
      run.control,
      run.stage,
    );
    const meetingId = await storeTranscription(
      deps,
      result,
      {
        newMeeting: {
          title: job.params.title ?? `Imported meeting ${deps.now().toISOString().slice(0, 16).replace('T', ' ')}`,
          created_at: deps.now().toISOString(),
          source: 'import',
          language,
          recording: { upload },
          duration_seconds: result.audio.durationSeconds,
        },
        meetingSaved: run.meetingSaved,
      },
      stepsOf(run),
    );
    return { meetingId };
  };

  const retranscriptionRunner: JobWork = async (job, run) => {
    const meetingId = requireMeeting(deps, job);
    const audio = recordingAudio(deps, meetingId);
    if (audio === null) throw new StageError('the meeting has no recording to transcribe again', { retryable: false });
    const language = job.params.language ?? deps.meetings.get(meetingId).language ?? 'en';
    const result = await transcribe(
      deps.parts,
      {
        audio,
        language,
        settings: deps.settings(),
        provider: job.params.provider,
        model: job.params.model,
        speakerCount: job.params.speaker_count,
      },
      run.control,
      run.stage,
    );
    await storeTranscription(deps, result, { meetingId, noSpeech: 'keep-transcript', summarize: false }, stepsOf(run));
    return { meetingId };
  };

  const diarizationRunner: JobWork = async (job, run) => {
    const meetingId = requireMeeting(deps, job);
    const audio = recordingAudio(deps, meetingId);
    if (audio === null) throw new StageError('the meeting has no recording to diarize', { retryable: false });
    const transcript = deps.meetings.transcript(meetingId);
    const words: RecognizedWord[] = transcript.segments.flatMap((s) =>
      s.words.length > 0
        ? s.words.map((w) => ({ text: w.text, start: w.start, end: w.end, confidence: w.confidence ?? 1 }))
        : [{ text: s.text, start: s.start, end: s.end, confidence: 1 }],
    );
    if (words.length === 0)
      throw new StageError('the meeting has an empty transcript: there is nothing to attribute', { retryable: false });
    const language = deps.meetings.get(meetingId).language ?? 'en';
    const result = await transcribe(
      deps.parts,
      { audio, language, settings: deps.settings(), speakerCount: job.params.speaker_count, words },
      run.control,
      run.stage,
    );
    await storeTranscription(deps, result, { meetingId, noSpeech: 'keep-transcript', summarize: false }, stepsOf(run));
    return { meetingId };
  };

  return { import: importRunner, retranscription: retranscriptionRunner, diarization: diarizationRunner };
}

/** Where storing shows its stage and progress: on the job, as the transcription did. */
function stepsOf(run: JobRun): StoreSteps {
  return { stage: run.stage, progress: (fraction) => run.control.progress(fraction) };
}

/** A meeting's recording as the decoder reads it, or null when it has none. */
function recordingAudio(deps: JobRunnerDeps, meetingId: string) {
  const recording = deps.meetings.recording(meetingId);
  return recording === null ? null : deps.media.audio({ recording });
}

function requireMeeting(deps: JobRunnerDeps, job: JobRecord): string {
  if (job.meeting_id === null || !deps.meetings.exists(job.meeting_id)) {
    throw new StageError('the meeting of this job no longer exists', { retryable: false });
  }
  return job.meeting_id;
}
