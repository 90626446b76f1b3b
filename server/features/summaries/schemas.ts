/**
 * DTOs of summary regeneration and its operations.
 */
import { z } from 'zod';
import { Timestamp } from '../../kernel/common-schemas.ts';
import { OPERATION_STATES } from './service.ts';

export const RegenerateSummaryRequest = z
  .strictObject({
    model: z.string().min(1).max(100).optional(),
    model_name: z.string().min(1).max(200).optional(),
    template_id: z.string().min(1).max(100).optional(),
    language: z
      .string()
      .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'must be a language tag such as en or en-US')
      .optional(),
  })
  .meta({ id: 'RegenerateSummaryRequest' });

export const OperationStatus = z
  .object({
    operation_id: z.string(),
    meeting_id: z.string(),
    state: z.enum(OPERATION_STATES),
    template_id: z.string(),
    model: z.string(),
    language: z.string().nullable(),
    error: z.string().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
    finished_at: Timestamp.nullable(),
    wait_url: z.string(),
    status_url: z.string(),
  })
  .meta({ id: 'OperationStatus' });

/** RegenerateResponse of API.md: the operation status, which carries operation_id, wait_url, status_url, state and meeting_id. */
export const RegenerateResponse = OperationStatus.meta({ id: 'RegenerateResponse' });
