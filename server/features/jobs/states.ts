/**
 * The job state machine of API.md ("Job states") as one transition table.
 * Every state change of a job goes through `transition()`; nothing else
 * writes a job's state. Decisions on the rows API.md leaves open are in
 * docs/decisions/012-jobs.md.
 */
import { TRANSCRIPTION_STAGE_NAMES } from '../../pipeline/transcribe.ts';

export const JOB_STATES = ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'pausing', 'paused', 'resuming', 'cancelling'] as const;
export type JobState = (typeof JOB_STATES)[number];

export const TERMINAL_STATES: readonly JobState[] = ['succeeded', 'failed', 'cancelled'];

export const JOB_KINDS = ['import', 'retranscription', 'diarization'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

export type JobAction =
  | 'start' // the worker picks the job up
  | 'succeed' // the work finished
  | 'fail' // the work raised an error
  | 'cancel' // POST /cancel
  | 'cancelled' // the worker stopped after a cancel
  | 'pause' // POST /pause (not for imports)
  | 'paused' // the worker has stopped at a checkpoint
  | 'resume' // POST /resume
  | 'resumed' // the worker runs again
  | 'retry' // POST /retry of a failed, retryable job
  | 'interrupt'; // the application restarted while the job was in flight

interface Row {
  from: readonly JobState[];
  action: JobAction;
  to: JobState;
}

/** The whole table. A (state, action) pair that is not here is refused. */
export const JOB_TRANSITIONS: readonly Row[] = [
  { from: ['queued'], action: 'start', to: 'running' },
  // Work that ends while a pause or resume is still settling ends all the same.
  { from: ['running', 'pausing', 'resuming'], action: 'succeed', to: 'succeeded' },
  { from: ['running', 'pausing', 'paused', 'resuming'], action: 'fail', to: 'failed' },
  // A job nobody is working on ends at once; one being worked on passes through cancelling.
  { from: ['queued', 'paused'], action: 'cancel', to: 'cancelled' },
  { from: ['running', 'pausing', 'resuming'], action: 'cancel', to: 'cancelling' },
  { from: ['cancelling'], action: 'cancelled', to: 'cancelled' },
  { from: ['running'], action: 'pause', to: 'pausing' },
  { from: ['pausing'], action: 'paused', to: 'paused' },
  { from: ['paused'], action: 'resume', to: 'resuming' },
  { from: ['resuming'], action: 'resumed', to: 'running' },
  { from: ['failed'], action: 'retry', to: 'queued' },
  { from: ['running', 'pausing', 'paused', 'resuming', 'cancelling'], action: 'interrupt', to: 'failed' },
];

/** The next state, or null when the table has no row for it. */
export function transition(state: JobState, action: JobAction): JobState | null {
  const row = JOB_TRANSITIONS.find((r) => r.action === action && r.from.includes(state));
  return row?.to ?? null;
}

export function isTerminal(state: JobState): boolean {
  return TERMINAL_STATES.includes(state);
}

/** Stages a job passes through, in order (JobDto.stage); the middle ones are the transcription's. */
export const JOB_STAGES = [
  'waiting',
  ...TRANSCRIPTION_STAGE_NAMES,
  'saving',
  'summarizing',
  'done',
] as const;
export type JobStage = (typeof JOB_STAGES)[number];
