/**
 * The one way a finished transcription is stored, whoever ran it: an import
 * job, a retranscription or a diarization job (features/jobs/runners.ts), a
 * stopped recording (features/recording/processor.ts).
 *
 *   saving       the segments become the meeting's transcript (a new meeting
 *                for an import); progress reaches SAVED_PROGRESS
 *   summarizing  the automatic summary, or the summary saying no speech was
 *                found (decision 031); imports and recordings only
 *
 * Audio without speech: an import still becomes a meeting, with its recording
 * and the no-speech summary saved in the same transaction as the meeting, so
 * no moment exists where it holds neither words nor the reason why; a
 * recording keeps its empty transcript and gets the same summary; a
 * retranscription fails and keeps the transcript the meeting had.
 *
 * The events are not published here: MeetingsService announces
 * transcript.updated where it writes the transcript, SummaryService
 * summary.completed where it writes the summary
 * (docs/decisions/085-one-post-transcription-path.md).
 */
import type { MeetingSeed, MeetingsService } from '../meetings/index.ts';
import { TRANSCRIPTION_END, type Transcription } from '../../pipeline/transcribe.ts';
import { StageError } from '../../pipeline/types.ts';
import { NO_SPEECH_SUMMARY, type SummaryService } from './service.ts';

/** Where the progress stands once the transcript is stored: half-way from the transcription's end; the summary takes the rest. */
const SAVED_PROGRESS = TRANSCRIPTION_END + (1 - TRANSCRIPTION_END) / 2;

/** What storing a transcription uses. */
export interface StoreTranscriptionDeps {
  meetings: MeetingsService;
  summaries: Pick<SummaryService, 'generateAutomatically' | 'recordNoSpeech'>;
}

/** An import: the transcription becomes a new meeting, and the upload its recording. */
export interface IntoNewMeeting {
  newMeeting: Pick<MeetingSeed, 'title' | 'created_at' | 'source' | 'language' | 'duration_seconds'> & {
    recording: NonNullable<MeetingSeed['recording']>;
  };
  /** Called inside the transaction that commits the meeting (the job records it: decision 024); a throw undoes the meeting. */
  meetingSaved(meetingId: string): void;
}

/** A recording, a retranscription or a diarization: the transcription replaces a meeting's transcript. */
export interface IntoMeeting {
  meetingId: string;
  /** Without speech: keep the transcript the meeting has and fail (retranscription), or store the empty one (recording). */
  noSpeech: 'keep-transcript' | 'store-empty';
  /** Whether the automatic summary follows (a recording) or the summary stays as it is (retranscription, diarization). */
  summarize: boolean;
}

/** Where the owner of the run shows its stage and progress (a job record, the recorder's processing view). */
export interface StoreSteps {
  stage(stage: 'saving' | 'summarizing'): void;
  progress(fraction: number): void;
}

/** Stores a finished transcription and runs what follows it; returns the meeting it went into. */
export async function storeTranscription(
  deps: StoreTranscriptionDeps,
  result: Pick<Transcription, 'speechFound' | 'segments' | 'speakerNames'>,
  into: IntoNewMeeting | IntoMeeting,
  steps: StoreSteps,
): Promise<string> {
  let meetingId: string;
  let summarize: boolean;
  if ('newMeeting' in into) {
    steps.stage('saving');
    // The job names its meeting in the transaction that commits the meeting:
    // a kill can leave neither or both, never a meeting no job names.
    const meeting = deps.meetings.create(
      {
        ...into.newMeeting,
        segments: result.segments,
        summary: result.speechFound ? null : { text: NO_SPEECH_SUMMARY },
        audio: false,
        transcribed: true,
        ...(result.speakerNames !== undefined ? { identified: result.speakerNames } : {}),
      },
      (id) => {
        into.meetingSaved(id);
      },
    );
    meetingId = meeting.id;
    summarize = true;
  } else {
    // The meeting keeps the transcript it has rather than trading it for an empty one.
    if (!result.speechFound && into.noSpeech === 'keep-transcript') {
      throw new StageError('no speech was found in the recording; the transcript was kept', { retryable: false });
    }
    steps.stage('saving');
    meetingId = into.meetingId;
    deps.meetings.replaceTranscript(meetingId, result.segments, result.speakerNames);
    summarize = into.summarize;
  }
  steps.progress(SAVED_PROGRESS);
  if (!summarize) return meetingId;

  steps.stage('summarizing');
  if (result.speechFound) await deps.summaries.generateAutomatically(meetingId);
  else deps.summaries.recordNoSpeech(meetingId);
  return meetingId;
}
