/**
 * Request bodies of the Control API (CONTROL.md). Every object is strict: an
 * unknown key, like a value of the wrong type, is a 422 invalid_request.
 */
import { sceneSchema } from '../../simulator/scenes/scene.ts';
import { z } from 'zod';
import { codePointString, CONTROL_CHARS } from '../kernel/common-schemas.ts';
import { TITLE_MAX } from '../features/meetings/index.ts';
import { TOKEN_KINDS, TOKEN_ORIGINS } from '../kernel/store/tokens-repo.ts';
import { JOB_KINDS, JOB_STATES } from '../features/jobs/index.ts';

/** What GET /control lists: only what this build implements. */
export const CAPABILITIES = [
  'reset',
  'settings',
  'restart',
  'tokens',
  'meetings',
  'jobs',
  'pairings',
  'webhook-approval',
  'devices',
  'recording-fault',
  'meeting-apps',
] as const;

export const CONTROL_VERSION = 1;

const MAX_SEGMENTS = 100_000;
const MAX_WORDS = 10_000;

/** POST /control/tokens. Scopes are strings; any name but the four parses to nothing. */
export const CreateTokenBody = z.strictObject({
  scopes: z.array(z.string().max(64)).max(64),
  origin: z.enum(TOKEN_ORIGINS).optional(),
  kind: z.enum(TOKEN_KINDS).optional(),
  name: codePointString({ min: 1, max: 100 })
    .refine((t) => !CONTROL_CHARS.test(t), { message: 'must not contain control characters' })
    .optional(),
});

/** PATCH /control/tokens/{token_id}. */
export const PatchTokenBody = z.strictObject({ enabled: z.boolean() });

/** A time in seconds from the start of the recording. */
const Seconds = z.number().min(0);

const Word = z
  .strictObject({
    text: z.string(),
    start: Seconds,
    end: Seconds,
    confidence: z.number().min(0).max(1).optional(),
  })
  .refine((w) => w.end >= w.start, { message: 'end must not be before start', path: ['end'] });

const Segment = z
  .strictObject({
    speaker: codePointString({ min: 1, max: 100 }),
    start: Seconds,
    end: Seconds,
    text: z.string(),
    words: z.array(Word).max(MAX_WORDS).optional(),
  })
  .refine((s) => s.end >= s.start, { message: 'end must not be before start', path: ['end'] });

/**
 * An ISO 8601 / RFC 3339 timestamp with a zone (Z or an offset). Normalised
 * to UTC with milliseconds (toISOString), the form the store writes, so seeded
 * and recorded meetings sort together.
 */
const SeedTimestamp = z.iso
  .datetime({ offset: true })
  .refine((t) => !Number.isNaN(Date.parse(t)), { message: 'must be a real date and time' })
  .transform((t) => new Date(t).toISOString());

/** POST /control/meetings: a meeting as if it had been recorded. */
export const SeedMeetingBody = z.strictObject({
  title: codePointString({ min: 1, max: TITLE_MAX }).refine((t) => !CONTROL_CHARS.test(t), {
    message: 'must not contain control characters',
  }),
  created_at: SeedTimestamp.optional(),
  segments: z.array(Segment).max(MAX_SEGMENTS),
  summary: z.strictObject({ text: z.string() }).nullable().optional(),
  audio: z.boolean().optional(),
});

/** 1 to 100 characters, none of them a control, format or unassigned code point, not blank. */
const DeviceName = codePointString({ min: 1, max: 100 })
  .refine((n) => /^[^\p{C}]*$/u.test(n), { message: 'must be printable characters only' })
  .refine((n) => n.trim().length > 0, { message: 'must not be blank' });

/** POST /control/devices. scene and seed are this gateway's extension (docs/decisions/030). */
export const PlugDeviceBody = z.strictObject({
  name: DeviceName,
  device_type: z.enum(['input', 'output']),
  script: codePointString({ min: 1, max: 200 }).nullable().optional(),
  /** A scene preset name or a scene object (simulator/scenes/scene.ts). */
  scene: z
    .union([codePointString({ min: 1, max: 100 }), sceneSchema])
    .nullable()
    .optional(),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .optional(),
});

/** POST /control/reset and /control/restart take no body; an empty object is tolerated. */
export const EmptyBody = z.strictObject({});

/**
 * POST /control/jobs: a job in any state, e.g. a failed desktop-created
 * retranscription to retry. CONTROL.md allows `hold` with any state: it takes
 * effect whenever the job is in queued or running (a paused held job, once
 * resumed, stays running until finish; on an ended job it changes nothing).
 */
export const CreateJobBody = z.strictObject({
  kind: z.enum(JOB_KINDS),
  meeting_id: z.string().min(1).max(200).nullable().optional(),
  state: z.enum(JOB_STATES),
  is_retryable: z.boolean().optional(),
  source_gone: z.boolean().optional(),
  error: z.string().max(10_000).nullable().optional(),
  hold: z.boolean().optional(),
});

/** POST /control/jobs/{id}/finish. */
export const FinishJobBody = z.strictObject({
  outcome: z.enum(['succeeded', 'failed']),
  error: z.string().max(10_000).optional(),
});
