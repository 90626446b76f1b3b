/**
 * The meeting script format: who speaks, with which synthetic voice, and what
 * they say in which order. Scripts live in fixtures/meetings/<name>.json; the
 * renderer (simulator/synth/render-script.ts) turns one into audio plus ground
 * truth. The format is described in docs/decisions/009-synthetic-meetings.md.
 */
import { z } from 'zod';
import { sceneSchema } from '../scenes/scene.ts';

/** espeak-ng's default rate (-s), the pace of an espeak voice whose speaker gives none; natural voices default to 160 (simulator/synth/voices.ts). */
export const DEFAULT_RATE_WPM = 175;
/** Silence before a line that gives neither pause_before nor overlap (the "tidy" dynamics). */
export const DEFAULT_PAUSE_SECONDS = 0.4;
/**
 * How turns are placed in time (simulator/dynamics/, decision 108): "tidy"
 * puts every line DEFAULT_PAUSE_SECONDS after the last (today's renders, byte
 * for byte); "natural" draws pauses and overlaps from AMI's statistics and
 * adds backchannels and hesitations. Named here so the script format does
 * not depend on the dynamics module.
 */
export const DYNAMICS_PROFILES = ['natural', 'tidy'] as const;
export type DynamicsProfileName = (typeof DYNAMICS_PROFILES)[number];

// A voice is "engine:voice" (flite:kal16, festival:cmu_us_slt_arctic_hts,
// espeak:en-us+f3) or, as older scripts write it, a bare espeak-ng name
// ("en-us", "en+f2"). Only English voices: the import formats carry language
// "en" and the scorers normalize English text. The names must match
// simulator/synth/voices.ts (isVoiceName); they are repeated here so the
// script format does not depend on the synthesizers.
const VOICE_PATTERN = /^((flite|festival):[a-z0-9_]{1,64}|(espeak:)?en(-[a-z0-9]+)*(\+[A-Za-z0-9]+)?)$/;
const isEspeakVoice = (voice: string): boolean => !/^(flite|festival):/.test(voice);

const speakerSchema = z.strictObject({
  key: z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{0,31}$/, 'a short key such as "S1" (letters, digits, _ or -)'),
  name: z.string().trim().min(1).max(100),
  /** Omitted: the renderer assigns one (simulator/synth/voices.ts, assignVoices). */
  voice: z
    .string()
    .regex(
      VOICE_PATTERN,
      'a voice such as "flite:kal16", "festival:cmu_us_slt_arctic_hts" or "espeak:en-us+f3" ' +
        '(English espeak-ng voices may be named bare: "en-us")',
    )
    .optional(),
  /** espeak-ng's own pitch (0–99, default 50); espeak voices only. */
  pitch: z.number().int().min(0).max(99).optional(),
  /** Semitones added to a natural voice's pitch. */
  pitch_shift: z.number().min(-12).max(12).optional(),
  rate: z.number().int().min(80).max(450).optional(),
});
const lineSchema = z.strictObject({
  speaker: z.string(),
  text: z
    .string()
    .trim()
    .min(1)
    .max(2000)
    .regex(/[\p{L}\p{N}]/u, 'text must contain at least one word'),
  pause_before: z.number().min(0).max(600).optional(),
  overlap: z.number().gt(0).max(30).optional(),
});

/** What a summary of the meeting should say: ground truth for simulator/score/key-points.ts. */
const KEY_POINT_KINDS = ['decision', 'blocker', 'owner', 'date', 'action', 'topic'] as const;
const keyPointSchema = z.strictObject({
  kind: z.enum(KEY_POINT_KINDS),
  /** A short phrase a person taking notes would write, not a quote of the script. */
  text: z.string().trim().min(1).max(200),
});

/** Words that carry no content, left out when checking that a prompt is not a line of the script. */
function contentWords(text: string): string[] {
  return lineWords(text.toLowerCase());
}

/**
 * What a user would type to bias the recognizer for this meeting: the names
 * and domain terms (custom-words) and one sentence of context
 * (initial-prompt), never the script's own sentences.
 */
const biasSchema = z.strictObject({
  custom_words: z.array(z.string().trim().min(1).max(100)).min(1).max(20),
  initial_prompt: z
    .string()
    .trim()
    .min(1)
    .refine((p) => lineWords(p).length <= 30, { message: 'an initial prompt is one sentence of at most 30 words' }),
});

const meetingScriptSchema = z
  .strictObject({
    title: z.string().trim().min(1).max(200),
    language: z.literal('en'),
    description: z.string().optional(),
    speakers: z.array(speakerSchema).min(1).max(16),
    lines: z.array(lineSchema).min(1),
    /** The acoustic scene rendered by default: a preset name or a scene object (simulator/scenes/scene.ts). */
    scene: z.union([z.string(), sceneSchema]).optional(),
    /** The conversation dynamics rendered by default (decision 108); a --dynamics flag wins. */
    dynamics: z.enum(DYNAMICS_PROFILES).optional(),
    key_points: z.array(keyPointSchema).max(50).optional(),
    bias: biasSchema.optional(),
  })
  .superRefine((script, ctx) => {
    if (script.bias !== undefined) {
      // The prompt must be context, not a line of the meeting: no 6-word run of it may appear in the script.
      const prompt = contentWords(script.bias.initial_prompt);
      const spoken = ` ${script.lines.map((l) => contentWords(l.text).join(' ')).join(' | ')} `;
      for (let i = 0; i + 6 <= prompt.length; i++) {
        const run = prompt.slice(i, i + 6).join(' ');
        if (spoken.includes(` ${run} `)) {
          ctx.addIssue({
            code: 'custom',
            path: ['bias', 'initial_prompt'],
            message: `the prompt repeats the script ("${run}"); give context a user would type, not the meeting's words`,
          });
          break;
        }
      }
    }
    const keys = new Set<string>();
    script.speakers.forEach((s, i) => {
      if (s.voice !== undefined && !isEspeakVoice(s.voice) && s.pitch !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['speakers', i, 'pitch'],
          message: `pitch is espeak-ng's 0-99 scale; give "${s.voice}" a pitch_shift in semitones instead`,
        });
      }
      if (s.voice !== undefined && isEspeakVoice(s.voice) && s.pitch_shift !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['speakers', i, 'pitch_shift'],
          message: `pitch_shift is for flite and festival voices; give the espeak-ng voice "${s.voice}" a pitch (0-99) instead`,
        });
      }
      if (keys.has(s.key)) ctx.addIssue({ code: 'custom', path: ['speakers', i, 'key'], message: `speaker key "${s.key}" is used twice` });
      keys.add(s.key);
    });
    script.lines.forEach((line, i) => {
      if (!keys.has(line.speaker)) {
        ctx.addIssue({
          code: 'custom',
          path: ['lines', i, 'speaker'],
          message: `unknown speaker "${line.speaker}" (speakers: ${[...keys].join(', ')})`,
        });
      }
      if (line.overlap !== undefined && line.pause_before !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['lines', i], message: 'give pause_before or overlap, not both' });
      }
      if (line.overlap !== undefined) {
        const previous = script.lines[i - 1];
        if (previous === undefined) {
          ctx.addIssue({ code: 'custom', path: ['lines', i, 'overlap'], message: 'the first line has no previous line to overlap' });
        } else if (previous.speaker === line.speaker) {
          // One voice cannot talk over itself; the mix would be two copies of one speaker.
          ctx.addIssue({
            code: 'custom',
            path: ['lines', i, 'overlap'],
            message: `speaker "${line.speaker}" cannot overlap their own previous line`,
          });
        }
      }
    });
  });

export type MeetingScript = z.infer<typeof meetingScriptSchema>;
export type ScriptSpeaker = MeetingScript['speakers'][number];
export type ScriptLine = MeetingScript['lines'][number];

/** A script that failed to load or validate; the message lists every problem with its JSON path. */
export class ScriptError extends Error {
  readonly source: string;
  readonly issues: readonly string[];
  constructor(source: string, issues: readonly string[]) {
    super(
      issues.length === 1
        ? `meeting script ${source}: ${issues[0]}`
        : `meeting script ${source} has ${issues.length} problems:\n${issues.map((i) => `  - ${i}`).join('\n')}`,
    );
    this.name = 'ScriptError';
    this.source = source;
    this.issues = issues;
  }
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : out === '' ? String(part) : `.${String(part)}`;
  return out === '' ? '(root)' : out;
}

/**
 * Validates parsed JSON (or a JSON string) as a meeting script.
 * `source` names the file in error messages.
 */
export function parseScript(json: unknown, source = 'script'): MeetingScript {
  let value = json;
  if (typeof json === 'string') {
    try {
      value = JSON.parse(json);
    } catch (error) {
      throw new ScriptError(source, [`not valid JSON: ${(error as Error).message}`]);
    }
  }
  const result = meetingScriptSchema.safeParse(value);
  if (!result.success) {
    throw new ScriptError(
      source,
      result.error.issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`),
    );
  }
  return result.data;
}

/** A whitespace-separated token as the ground truth spells it: outer punctuation removed ("Friday," → "Friday"; a lone dash → ""). */
export function truthWord(token: string): string {
  return token.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
}

/** Words of a line as the ground truth spells them. */
export function lineWords(text: string): string[] {
  return text
    .split(/\s+/)
    .map(truthWord)
    .filter((word) => word.length > 0);
}
