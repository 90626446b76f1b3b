/**
 * The rows of the operations table for live recording (API.md, Recording).
 * Spread into OPERATIONS by operations.ts; handlers in features/recording/handlers.ts.
 * Decisions: docs/decisions/017-recording.md.
 */
import { ApiError } from '../../kernel/errors.ts';
import { clampedInt, type QueryParam } from '../../kernel/http/query.ts';
import { READ, type Operation } from '../../kernel/operation-types.ts';
import { RecordingStateDto, StartRecordingRequest } from './schemas.ts';
import { clip } from '../../../common/clip.ts';

const WAIT_UNTIL = ['started', 'stopped'] as const;
type WaitUntil = (typeof WAIT_UNTIL)[number];

/** `until` of the recording wait: required, started or stopped; anything else is 422 before the stream opens. */
const untilParam: QueryParam<WaitUntil> = {
  required: true,
  description: 'the transition to wait for: started or stopped',
  schema: { type: 'string', enum: [...WAIT_UNTIL] },
  parse(name, raw) {
    if (raw !== undefined && typeof raw !== 'string')
      throw new ApiError('invalid_request', `query parameter ${name} must be given once, as a plain value`);
    if (raw === undefined || raw === '') throw new ApiError('invalid_request', `query parameter ${name} is required: started or stopped`);
    const value = (WAIT_UNTIL as readonly string[]).find((v) => v === raw.toLowerCase());
    if (value === undefined)
      throw new ApiError('invalid_request', `query parameter ${name} must be started or stopped, got "${clip(raw, 40)}"`);
    return value as WaitUntil;
  },
};

const CONTROL = { readOnly: false, idempotent: true, destructive: false } as const;

export const RECORDING_OPERATIONS = [
  {
    operationId: 'getRecording',
    method: 'get',
    path: '/v1/recording',
    tag: 'recording',
    summary: 'The recorder: state, active meeting, last error, devices, and the transcription of the last recording',
    scope: 'read',
    ...READ,
    responses: { 200: { description: 'the recording state', schema: RecordingStateDto } },
  },
  {
    operationId: 'startRecording',
    method: 'post',
    path: '/v1/recording/start',
    tag: 'recording',
    summary: 'Start recording real audio now; answers at once with state starting (409 recording_in_progress unless idle)',
    scope: 'record',
    readOnly: false,
    idempotent: false,
    destructive: false,
    body: { schema: StartRecordingRequest, required: false },
    responses: {
      202: { description: 'accepted: state starting; recording.started follows once capture is up', schema: RecordingStateDto },
    },
  },
  {
    operationId: 'stopRecording',
    method: 'post',
    path: '/v1/recording/stop',
    tag: 'recording',
    summary: 'Stop and finalize the recording (stopping, then idle); 409 recording_active when there is none',
    scope: 'record',
    ...CONTROL,
    responses: {
      200: { description: 'the state after the call: stopping (idle follows with recording.stopped)', schema: RecordingStateDto },
    },
  },
  {
    operationId: 'pauseRecording',
    method: 'post',
    path: '/v1/recording/pause',
    tag: 'recording',
    summary: 'Pause capture, keeping the recording (recording → paused); 409 recording_active unless recording or paused',
    scope: 'record',
    ...CONTROL,
    responses: { 200: { description: 'the state after the call: paused', schema: RecordingStateDto } },
  },
  {
    operationId: 'resumeRecording',
    method: 'post',
    path: '/v1/recording/resume',
    tag: 'recording',
    summary: 'Resume a paused recording (paused → recording); 409 recording_active unless paused or recording',
    scope: 'record',
    ...CONTROL,
    responses: { 200: { description: 'the state after the call: recording', schema: RecordingStateDto } },
  },
  {
    operationId: 'waitRecording',
    method: 'get',
    path: '/v1/recording/wait',
    tag: 'recording',
    summary: 'SSE: one event when the recording has started (recording.started) or stopped (recording.stopped), or timeout',
    scope: 'read',
    ...READ,
    query: {
      until: untilParam,
      timeout: clampedInt({
        min: 0,
        max: 3600,
        default: 300,
        description: 'seconds before the timeout event; default 300, capped at 3600',
      }),
    },
    responses: { 200: { description: 'text/event-stream with exactly one event', contentTypes: ['text/event-stream'] } },
  },
] as const satisfies readonly Operation[];
