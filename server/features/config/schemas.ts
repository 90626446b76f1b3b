/**
 * The eight configuration sections of API.md, each with typed fields and the
 * defaults the pipeline falls back to. API.md leaves the fields "not shown";
 * they are decided in docs/decisions/005-config-sections.md.
 *
 * PUT replaces a whole section: every field is optional in the request, an
 * omitted field is dropped from storage, and readers fill it from the
 * defaults below (`effectiveConfig`). Unknown fields and wrong types → 422.
 */
import { z } from 'zod';
import { codePointString } from '../../kernel/common-schemas.ts';

const ratio = z.number().min(0).max(1);
const ms = (max: number) => z.number().int().min(0).max(max);

export const CONFIG_SECTIONS = {
  vad: {
    schema: z.strictObject({
      enabled: z.boolean().optional(),
      threshold: ratio.optional().meta({ description: 'speech probability above which a frame is speech' }),
      min_speech_ms: ms(10_000).optional(),
      min_silence_ms: ms(10_000).optional(),
      speech_pad_ms: ms(2_000).optional(),
      enhancement: z.enum(['auto', 'on', 'off']).optional().meta({
        description: 'speech-enhancement front end before voice activity: auto runs each part only where the recording needs it',
      }),
      dereverberation: z.boolean().optional().meta({ description: 'whether the front end may remove reverberation (WPE)' }),
      denoise: z.boolean().optional().meta({ description: 'whether the front end may remove noise (RNNoise)' }),
    }),
    defaults: {
      enabled: true,
      threshold: 0.5,
      min_speech_ms: 250,
      min_silence_ms: 500,
      speech_pad_ms: 100,
      enhancement: 'auto' as 'auto' | 'on' | 'off',
      dereverberation: true,
      denoise: true,
    },
    withheld: [] as string[],
  },
  diarization: {
    schema: z.strictObject({
      enabled: z.boolean().optional(),
      speaker_count: z.number().int().min(1).max(20).nullable().optional().meta({
        description: 'fixed number of speakers; null for automatic',
      }),
      min_speakers: z.number().int().min(1).max(20).optional(),
      max_speakers: z.number().int().min(1).max(20).optional(),
      clustering_threshold: ratio.optional(),
    }),
    defaults: { enabled: true, speaker_count: null, min_speakers: 1, max_speakers: 8, clustering_threshold: 0.5 },
    withheld: [] as string[],
  },
  'speaker-identification': {
    schema: z.strictObject({
      enabled: z.boolean().optional(),
      match_threshold: ratio.optional(),
      known_speakers: z
        .array(z.strictObject({ name: codePointString({ min: 1, max: 200 }) }))
        .max(100)
        .optional(),
    }),
    defaults: { enabled: false, match_threshold: 0.75, known_speakers: [] },
    // Enrolled voiceprints are biometric data: the application keeps them and
    // the API never shows or accepts them.
    withheld: ['voiceprints'],
  },
  'meeting-detection': {
    schema: z.strictObject({
      enabled: z.boolean().optional(),
      auto_record: z.boolean().optional().meta({
        description: 'arms automatic recording of detected meetings; true needs the record scope and pre-arming',
      }),
      apps: z
        .array(codePointString({ min: 1, max: 100 }))
        .max(50)
        .optional(),
      min_meeting_seconds: z.number().int().min(0).max(3600).optional(),
    }),
    defaults: { enabled: false, auto_record: false, apps: ['zoom', 'teams', 'meet', 'webex', 'slack'], min_meeting_seconds: 60 },
    withheld: [] as string[],
  },
  'global-shortcut': {
    schema: z.strictObject({
      enabled: z.boolean().optional(),
      toggle_recording: codePointString({ min: 1, max: 100 }).optional(),
      pause_recording: codePointString({ min: 1, max: 100 }).optional(),
    }),
    defaults: { enabled: true, toggle_recording: 'CmdOrCtrl+Shift+R', pause_recording: 'CmdOrCtrl+Shift+P' },
    withheld: [] as string[],
  },
  'audio-player': {
    schema: z.strictObject({
      playback_rate: z.number().min(0.5).max(3).optional(),
      skip_seconds: z.number().int().min(1).max(60).optional(),
      volume: ratio.optional(),
    }),
    defaults: { playback_rate: 1, skip_seconds: 10, volume: 1 },
    withheld: [] as string[],
  },
  'custom-words': {
    schema: z.strictObject({
      enabled: z.boolean().optional(),
      words: z
        .array(codePointString({ min: 1, max: 100 }))
        .max(1000)
        .optional()
        .meta({
          description: 'names and terms the recognizer is biased towards',
        }),
    }),
    defaults: { enabled: true, words: [] as string[] },
    withheld: [] as string[],
  },
  'initial-prompt': {
    schema: z.strictObject({
      enabled: z.boolean().optional(),
      prompt: codePointString({ max: 2000 }).optional().meta({ description: 'context text that primes the recognizer' }),
    }),
    defaults: { enabled: false, prompt: '' },
    withheld: [] as string[],
  },
} as const;

export type ConfigSectionName = keyof typeof CONFIG_SECTIONS;
export const CONFIG_SECTION_NAMES = Object.keys(CONFIG_SECTIONS) as ConfigSectionName[];

export function isConfigSection(name: string): name is ConfigSectionName {
  return Object.hasOwn(CONFIG_SECTIONS, name);
}

/** A section as the pipeline reads it: every field present, typed by the section's schema. */
export type EffectiveSection<N extends ConfigSectionName> = {
  [K in keyof z.infer<(typeof CONFIG_SECTIONS)[N]['schema']>]-?: Exclude<z.infer<(typeof CONFIG_SECTIONS)[N]['schema']>[K], undefined>;
};

/**
 * The stored section over the defaults, checked against the section's schema
 * (storage only ever holds what PUT validated, so a failure here means a
 * damaged database, and the defaults are the safe answer).
 */
export function typedEffectiveConfig<N extends ConfigSectionName>(section: N, stored: Record<string, unknown> | null): EffectiveSection<N> {
  const parsed = CONFIG_SECTIONS[section].schema.safeParse(stored ?? {});
  const fields = parsed.success ? (parsed.data as Record<string, unknown>) : {};
  const present = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  const merged: Record<string, unknown> = { ...CONFIG_SECTIONS[section].defaults, ...present };
  return merged as EffectiveSection<N>;
}

/** What the pipeline reads: the stored section over the defaults. */
export function effectiveConfig(section: ConfigSectionName, stored: Record<string, unknown> | null): Record<string, unknown> {
  return { ...CONFIG_SECTIONS[section].defaults, ...(stored ?? {}) };
}

/** A list zod's enum and union accept (they need at least one member); the sections are never empty. */
function atLeastOne<T>(items: readonly T[]): [T, ...T[]] {
  const [first, ...rest] = items;
  if (first === undefined) throw new Error('the config section table is empty');
  return [first, ...rest];
}

export const ConfigDto = z
  .object({
    section: z.enum(atLeastOne(CONFIG_SECTION_NAMES)),
    config: z.record(z.string(), z.unknown()),
    withheld: z.array(z.string()).meta({
      description: 'names of fields the application keeps for this section but never shows or accepts over the API',
    }),
  })
  .meta({ id: 'ConfigDto' });

/** The PUT body in the OpenAPI document: one of the section schemas. */
export const ConfigSectionBody = z
  .union(atLeastOne(CONFIG_SECTION_NAMES.map((n) => CONFIG_SECTIONS[n].schema)))
  .meta({ id: 'ConfigSectionBody', description: 'the whole section object; which fields apply depends on {section}' });
