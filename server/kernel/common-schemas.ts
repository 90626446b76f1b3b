/**
 * Building blocks shared by the DTO schemas.
 *
 * Every schema that appears in /openapi.json carries a `.meta({ id })`, which
 * becomes its name under components/schemas.
 */
import { z } from 'zod';

/** An RFC 3339 / ISO 8601 timestamp in UTC, as every *_at field is written. */
export const Timestamp = z.iso.datetime({ offset: true }).meta({ description: 'RFC 3339 timestamp' });

/**
 * A string limited by Unicode code points, the unit JSON Schema's maxLength
 * counts (zod's own max() counts UTF-16 units, which would make an emoji two
 * characters).
 */
export function codePointString(opts: { min?: number; max: number }) {
  const min = opts.min ?? 0;
  return z
    .string()
    .refine((s) => Array.from(s).length >= min, { message: `must be at least ${min} characters` })
    .refine((s) => Array.from(s).length <= opts.max, { message: `must be at most ${opts.max} characters` })
    .meta({ minLength: min, maxLength: opts.max });
}

/** Characters that have no place in a one-line label: C0 controls, DEL and the C1 range. */
export const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

export const ErrorEnvelopeSchema = z
  .object({
    error: z.object({
      code: z.string().meta({ description: 'stable machine code; a sub-code where one applies' }),
      message: z.string().meta({ description: 'human-readable, may change' }),
    }),
  })
  .meta({ id: 'ErrorEnvelope' });
