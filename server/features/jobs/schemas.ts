/**
 * DTOs of jobs.
 */
import { z } from 'zod';
import { Timestamp } from '../../kernel/common-schemas.ts';
import { JOB_KINDS, JOB_STAGES, JOB_STATES } from './states.ts';

export const JobDto = z
  .object({
    id: z.string(),
    kind: z.enum(JOB_KINDS),
    state: z.enum(JOB_STATES),
    stage: z.enum(JOB_STAGES),
    progress: z.number().min(0).max(1).meta({ description: 'fraction done, 0 to 1' }),
    meeting_id: z.string().nullable().meta({ description: 'null until a meeting is assigned' }),
    is_retryable: z.boolean(),
    error: z.string().nullable().meta({ description: 'why a failed job failed; paths redacted' }),
    created_at: Timestamp,
    updated_at: Timestamp,
    finished_at: Timestamp.nullable(),
    attempts: z.number().int().nonnegative().meta({ description: 'how many times the job was retried' }),
  })
  .meta({ id: 'JobDto' });

export const JobListResponse = z.object({ jobs: z.array(JobDto) }).meta({ id: 'JobListResponse' });

export const JobIdResponse = z.object({ job_id: z.string() }).meta({ id: 'JobIdResponse' });

export const DiarizationRequest = z
  .strictObject({
    meeting_id: z.string().min(1).max(200),
    speaker_count: z.number().int().min(1).max(20).optional().meta({ description: 'omit for automatic' }),
  })
  .meta({ id: 'DiarizationRequest' });
