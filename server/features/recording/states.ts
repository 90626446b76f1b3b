/**
 * The recording state machine of API.md ("Recording states") as one
 * transition table. Every state change of the recorder goes through
 * `transition()`; nothing else writes the state. What an API call does in a
 * state the table has no row for (a no-op, or a 409 with which sub-code) is
 * the second table, `API_OUTCOMES`. Decisions: docs/decisions/017-recording.md.
 */
import { defineStateMachine, transition as nextState } from '../../kernel/state-machine.ts';

export const RECORDING_STATES = ['idle', 'starting', 'recording', 'paused', 'stopping'] as const;
export type RecordingState = (typeof RECORDING_STATES)[number];

const RECORDING_ACTIONS = [
  'start', // POST /v1/recording/start accepted
  'capture_up', // every device delivers audio: the recording has started
  'pause', // POST /v1/recording/pause
  'resume', // POST /v1/recording/resume
  'stop', // POST /v1/recording/stop
  'fail', // a device was lost, capture failed, or POST /control/recording/fault
  'finalized', // capture closed, the audio file complete
  'reset', // Control API reset, application shutdown
] as const;
export type RecordingAction = (typeof RECORDING_ACTIONS)[number];

/** The whole table. A (state, action) pair that is not here does not move the state. */
export const RECORDING_MACHINE = defineStateMachine({
  name: 'recording',
  states: RECORDING_STATES,
  events: RECORDING_ACTIONS,
  rows: [
    { from: ['idle'], on: 'start', to: 'starting' },
    { from: ['starting'], on: 'capture_up', to: 'recording' },
    { from: ['recording'], on: 'pause', to: 'paused' },
    { from: ['paused'], on: 'resume', to: 'recording' },
    // Every end passes through stopping, where capture closes and the file is completed.
    { from: ['starting', 'recording', 'paused'], on: 'stop', to: 'stopping' },
    { from: ['starting', 'recording', 'paused'], on: 'fail', to: 'stopping' },
    { from: ['stopping'], on: 'finalized', to: 'idle' },
    { from: ['idle', 'starting', 'recording', 'paused', 'stopping'], on: 'reset', to: 'idle' },
  ],
});

/** The next state, or null when the table has no row for it. */
export function transition(state: RecordingState, action: RecordingAction): RecordingState | null {
  return nextState(RECORDING_MACHINE, state, action);
}

export type ApiAction = 'start' | 'stop' | 'pause' | 'resume';

/** What an API call does where the transition table has no row. */
export type ApiOutcome =
  | { kind: 'move' }
  /** Already there or already on the way: 200 with the state as it is. */
  | { kind: 'same' }
  | { kind: 'refuse'; code: 'recording_in_progress' | 'recording_active'; message: string };

const REFUSALS: Record<ApiAction, Partial<Record<RecordingState, ApiOutcome>>> = {
  start: {
    starting: {
      kind: 'refuse',
      code: 'recording_in_progress',
      message: 'a recording is already starting; stop it before starting another',
    },
    recording: { kind: 'refuse', code: 'recording_in_progress', message: 'a recording is in progress; stop it before starting another' },
    paused: {
      kind: 'refuse',
      code: 'recording_in_progress',
      message: 'a recording is in progress (paused); stop it before starting another',
    },
    stopping: {
      kind: 'refuse',
      code: 'recording_in_progress',
      message: 'the previous recording is still being finalized; start again once the state is idle',
    },
  },
  stop: {
    idle: { kind: 'refuse', code: 'recording_active', message: 'there is no active recording to stop' },
    stopping: { kind: 'same' },
  },
  pause: {
    idle: { kind: 'refuse', code: 'recording_active', message: 'there is no active recording to pause' },
    starting: {
      kind: 'refuse',
      code: 'recording_active',
      message: 'the recording is still starting; pause it once the state is recording',
    },
    stopping: { kind: 'refuse', code: 'recording_active', message: 'the recording is stopping and can no longer be paused' },
    paused: { kind: 'same' },
  },
  resume: {
    idle: { kind: 'refuse', code: 'recording_active', message: 'there is no active recording to resume' },
    starting: { kind: 'refuse', code: 'recording_active', message: 'the recording is still starting; there is nothing to resume' },
    stopping: { kind: 'refuse', code: 'recording_active', message: 'the recording is stopping and can no longer be resumed' },
    recording: { kind: 'same' },
  },
};

/** What an API call does in a state: move along the table, stay (idempotent), or be refused with 409. */
export function apiOutcome(state: RecordingState, action: ApiAction): ApiOutcome {
  if (transition(state, action) !== null) return { kind: 'move' };
  return (
    REFUSALS[action][state] ?? {
      kind: 'refuse',
      code: 'recording_active',
      message: `${action} is not possible while the recording is ${state}`,
    }
  );
}
