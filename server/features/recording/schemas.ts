/**
 * DTOs of the recording resource (API.md, Recording state and Recording
 * endpoints). The fields beyond state, active_meeting_id and last_error are
 * decided in docs/decisions/017-recording.md.
 */
import { z } from 'zod';
import { codePointString, CONTROL_CHARS, Timestamp } from '../../kernel/common-schemas.ts';
import { TITLE_MAX } from '../meetings/index.ts';
import { RECORDING_STATES } from './states.ts';
import { PROCESSING_STAGES } from './processor.ts';

const DeviceNameRef = codePointString({ min: 1, max: 200 }).nullable().optional();

export const StartRecordingRequest = z
  .strictObject({
    meeting_name: codePointString({ min: 1, max: TITLE_MAX })
      .refine((t) => !CONTROL_CHARS.test(t), { message: 'must not contain control characters' })
      .refine((t) => t.trim().length > 0, { message: 'must not be blank' })
      .nullable()
      .optional()
      .meta({ description: 'title of the meeting; default "Recording <UTC date and time>"' }),
    mic_device_name: DeviceNameRef.meta({ description: 'an input device from GET /v1/devices; default the first input device' }),
    system_device_name: DeviceNameRef.meta({ description: 'an output device whose audio is recorded too, mixed into the same track' }),
    consent_attested: z.boolean().optional().meta({ description: 'omitted or true starts; false is refused with 400' }),
  })
  .meta({ id: 'StartRecordingRequest' });

const RecordingDevice = z
  .object({
    name: z.string(),
    role: z.enum(['mic', 'system']),
    device_type: z.enum(['input', 'output']),
    simulated: z.boolean(),
    transport: z.enum(['pulse', 'in-process', 'alsa']).nullable().meta({ description: 'how it is captured; null until it is open' }),
  })
  .meta({ id: 'RecordingDevice' });

const RecordingProcessing = z
  .object({
    meeting_id: z.string(),
    state: z.enum(['queued', 'running', 'succeeded', 'failed']),
    stage: z.enum(PROCESSING_STAGES),
    progress: z.number().min(0).max(1),
    error: z.string().nullable().meta({ description: 'why transcription failed; paths redacted; the meeting keeps its audio' }),
  })
  .meta({ id: 'RecordingProcessing' });

export const RecordingStateDto = z
  .object({
    state: z.enum(RECORDING_STATES),
    active_meeting_id: z.string().nullable().meta({ description: 'the meeting being recorded; set in recording, paused and stopping' }),
    last_error: z.string().nullable().meta({ description: 'why the last recording failed; paths redacted; cleared by the next start' }),
    session_id: z.string().nullable().meta({ description: 'id of the current recording; the resource id of recording.* events' }),
    meeting_name: z.string().nullable(),
    requested_at: Timestamp.nullable(),
    started_at: Timestamp.nullable().meta({ description: 'when capture came up (state recording)' }),
    devices: z.array(RecordingDevice),
    captured_seconds: z.number().nonnegative().meta({ description: 'seconds of audio written so far' }),
    last_meeting_id: z.string().nullable().meta({ description: 'the meeting made by the last recording that ended' }),
    processing: RecordingProcessing.nullable().meta({ description: 'transcription of the last recording into its meeting' }),
  })
  .meta({ id: 'RecordingStateDto' });
