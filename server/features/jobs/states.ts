/**
 * The job state machine of API.md ("Job states") as one transition table.
 * Every state change of a job goes through `transition()`; nothing else
 * writes a job's state. Decisions on the rows API.md leaves open are in
 * docs/decisions/012-jobs.md.
 */
import { defineStateMachine, transition as nextState } from '../../kernel/state-machine.ts';
import { TRANSCRIPTION_STAGE_NAMES } from '../../pipeline/transcribe.ts';

export const JOB_STATES = ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'pausing', 'paused', 'resuming', 'cancelling'] as const;
export type JobState = (typeof JOB_STATES)[number];

const TERMINAL_STATES: readonly JobState[] = ['succeeded', 'failed', 'cancelled'];

export const JOB_KINDS = ['import', 'retranscription', 'diarization'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

/** What can happen to a job (the events of its machine). */
const JOB_ACTIONS = [
  'start', // the worker picks the job up
  'succeed', // the work finished
  'fail', // the work raised an error
  'cancel', // POST /cancel
  'cancelled', // the worker stopped after a cancel
  'pause', // POST /pause (not for imports)
  'paused', // the worker has stopped at a checkpoint
  'resume', // POST /resume
  'resumed', // the worker runs again
  'retry', // POST /retry of a failed, retryable job
  'interrupt', // the application restarted while the job was in flight
] as const;
export type JobAction = (typeof JOB_ACTIONS)[number];

/** The whole table. A (state, action) pair that is not here is refused. */
export const JOB_MACHINE = defineStateMachine({
  name: 'job',
  states: JOB_STATES,
  events: JOB_ACTIONS,
  rows: [
    { from: ['queued'], on: 'start', to: 'running' },
    // Work that ends while a pause or resume is still settling ends all the same.
    { from: ['running', 'pausing', 'resuming'], on: 'succeed', to: 'succeeded' },
    { from: ['running', 'pausing', 'paused', 'resuming'], on: 'fail', to: 'failed' },
    // A job nobody is working on ends at once; one being worked on passes through cancelling.
    { from: ['queued', 'paused'], on: 'cancel', to: 'cancelled' },
    { from: ['running', 'pausing', 'resuming'], on: 'cancel', to: 'cancelling' },
    { from: ['cancelling'], on: 'cancelled', to: 'cancelled' },
    { from: ['running'], on: 'pause', to: 'pausing' },
    { from: ['pausing'], on: 'paused', to: 'paused' },
    { from: ['paused'], on: 'resume', to: 'resuming' },
    { from: ['resuming'], on: 'resumed', to: 'running' },
    { from: ['failed'], on: 'retry', to: 'queued' },
    { from: ['running', 'pausing', 'paused', 'resuming', 'cancelling'], on: 'interrupt', to: 'failed' },
  ],
});

/** The next state, or null when the table has no row for it. */
export function transition(state: JobState, action: JobAction): JobState | null {
  return nextState(JOB_MACHINE, state, action);
}

export function isTerminal(state: JobState): boolean {
  return TERMINAL_STATES.includes(state);
}

/** Stages a job passes through, in order (JobDto.stage); the middle ones are the transcription's. */
export const JOB_STAGES = ['waiting', ...TRANSCRIPTION_STAGE_NAMES, 'saving', 'summarizing', 'done'] as const;
export type JobStage = (typeof JOB_STAGES)[number];
