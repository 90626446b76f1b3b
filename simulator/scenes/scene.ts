/**
 * An acoustic scene: the room, the noise and the line a meeting is heard
 * through. A scene is part of a render request (the simulator CLI's flags,
 * the Control API's device body, a script file's "scene" field) and is
 * written, resolved, into the truth file with its seed. It never changes the
 * words or their times: only how they sound.
 *
 * Order of the stages, as in a real room and a real call:
 *   1. each speaker's track through their own room response (distance, gain);
 *   2. the tracks summed; noises and interruptions added at their SNR against
 *      the speech's active power;
 *   3. the channel stages in the order given (codec, telephone, clipping,
 *      dropouts);
 *   4. turned down evenly if anything exceeds full scale.
 *
 * Same tracks, scene and seed give the same samples (docs/decisions/028).
 */
import { z } from 'zod';
import { clip, dropouts, mp3Codec, opusCodec, telephoneBand } from './channel.ts';
import { activePower, babbleNoise, hvacNoise, interruptionNoise, keyboardNoise, pinkNoise } from './noise.ts';
import { reverberate } from './room.ts';

export const NOISE_TYPES = ['pink', 'hvac', 'babble', 'keyboard'] as const;

const snrDb = z.number().min(-10).max(60);

const roomSchema = z.strictObject({
  rt60: z.number().min(0.05).max(3),
  /** Direct-to-reverberant ratio at 1 m; 3 dB is a small meeting room heard from the table. */
  drr_db: z.number().min(-20).max(30).default(3),
});

const placementSchema = z.strictObject({
  distance_m: z.number().min(0.1).max(20).default(1),
  gain_db: z.number().min(-30).max(20).default(0),
});

const noiseSchema = z.strictObject({ type: z.enum(NOISE_TYPES), snr_db: snrDb });

const channelSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('telephone') }),
  z.strictObject({ type: z.literal('opus'), kbps: z.number().int().min(6).max(256) }),
  z.strictObject({ type: z.literal('mp3'), kbps: z.number().int().min(8).max(320) }),
  z.strictObject({ type: z.literal('clip'), threshold_db: z.number().min(0).max(40) }),
  z.strictObject({ type: z.literal('dropouts'), per_minute: z.number().min(0).max(600), ms: z.number().min(1).max(2000).default(80) }),
]);

/** The scene as written in scripts, Control API bodies and truth files. */
export const sceneSchema = z.strictObject({
  /** The preset this scene starts from; the other fields override it. */
  preset: z.string().optional(),
  room: roomSchema.nullable().optional(),
  /** Per script speaker key: where they sit. Without a room only the level changes (1/distance, gain). */
  speakers: z.record(z.string(), placementSchema).optional(),
  noise: z.array(noiseSchema).max(8).optional(),
  interruptions: z
    .strictObject({ per_minute: z.number().min(0).max(60), snr_db: snrDb })
    .nullable()
    .optional(),
  channel: z.array(channelSchema).max(8).optional(),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .optional(),
});

export type SceneSpec = z.input<typeof sceneSchema>;
type ChannelStage = z.output<typeof channelSchema>;
type NoiseSpec = z.output<typeof noiseSchema>;

/** A scene with its preset applied and every default filled in: what the truth file records. */
export interface ResolvedScene {
  preset: string;
  room: { rt60: number; drr_db: number } | null;
  speakers: Record<string, { distance_m: number; gain_db: number }>;
  noise: NoiseSpec[];
  interruptions: { per_minute: number; snr_db: number } | null;
  channel: ChannelStage[];
  seed: number;
}

/**
 * The named scenes. office and hard are issue targets of the quality
 * benchmark; noise-only and reverb-only are office's two halves, to tell
 * what each does to recognition.
 */
export const SCENE_PRESETS: Record<string, { description: string; scene: SceneSpec }> = {
  clean: { description: 'no room, no noise, no channel: the voices as synthesized', scene: {} },
  office: {
    description: 'meeting room, RT60 0.4 s (DRR 3 dB) + pink noise at 15 dB SNR',
    scene: { room: { rt60: 0.4, drr_db: 3 }, noise: [{ type: 'pink', snr_db: 15 }] },
  },
  hard: {
    description: 'reverberant room, RT60 0.7 s (DRR 0 dB) + babble at 5 dB SNR + MP3 at 32 kb/s',
    scene: { room: { rt60: 0.7, drr_db: 0 }, noise: [{ type: 'babble', snr_db: 5 }], channel: [{ type: 'mp3', kbps: 32 }] },
  },
  'noise-only': { description: "office's noise alone: pink noise at 15 dB SNR", scene: { noise: [{ type: 'pink', snr_db: 15 }] } },
  'reverb-only': { description: "office's room alone: RT60 0.4 s, DRR 3 dB", scene: { room: { rt60: 0.4, drr_db: 3 } } },
  'phone-call': {
    description: 'a call from a desk phone: telephone band (8 kHz mu-law), HVAC hum at 20 dB, a few dropouts',
    scene: { noise: [{ type: 'hvac', snr_db: 20 }], channel: [{ type: 'telephone' }, { type: 'dropouts', per_minute: 4, ms: 60 }] },
  },
  'open-plan': {
    description: 'open-plan office: RT60 0.5 s, babble at 10 dB, keyboard at 20 dB, interruptions, Opus at 12 kb/s',
    scene: {
      room: { rt60: 0.5, drr_db: 2 },
      noise: [
        { type: 'babble', snr_db: 10 },
        { type: 'keyboard', snr_db: 20 },
      ],
      interruptions: { per_minute: 1, snr_db: 10 },
      channel: [{ type: 'opus', kbps: 12 }],
    },
  },
};

const DEFAULT_SCENE_SEED = 1;

/** A scene that cannot be used: the message says which field and why. */
export class SceneError extends Error {
  override name = 'SceneError';
}

/** Validates a scene given as a preset name or an object, applies its preset and fills the defaults. `seed` overrides the scene's own. */
export function resolveScene(input: string | SceneSpec | null | undefined, seed?: number): ResolvedScene {
  const spec: SceneSpec = typeof input === 'string' ? { preset: input } : (input ?? {});
  const parsed = sceneSchema.safeParse(spec);
  if (!parsed.success) {
    throw new SceneError(`scene: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  }
  const own = parsed.data;
  const presetName = own.preset ?? 'clean';
  const preset = SCENE_PRESETS[presetName];
  if (preset === undefined) throw new SceneError(`scene: unknown preset "${presetName}"; known: ${Object.keys(SCENE_PRESETS).join(', ')}`);
  const base = sceneSchema.parse(preset.scene);
  const pick = <K extends keyof typeof own>(key: K): (typeof own)[K] => (own[key] !== undefined ? own[key] : base[key]);
  return {
    preset: presetName,
    room: pick('room') ?? null,
    speakers: pick('speakers') ?? {},
    noise: pick('noise') ?? [],
    interruptions: pick('interruptions') ?? null,
    channel: pick('channel') ?? [],
    seed: seed ?? own.seed ?? DEFAULT_SCENE_SEED,
  };
}

/** True when each speaker must be rendered on a track of their own (room or placement). */
export function needsSpeakerTracks(scene: ResolvedScene): boolean {
  return scene.room !== null || Object.keys(scene.speakers).length > 0;
}

/** A sub-seed per stage and speaker, so adding a speaker or a noise does not reshuffle the others. */
export function subSeed(seed: number, ...parts: (string | number)[]): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  for (const part of parts) {
    for (const ch of String(part)) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
    h = Math.imul(h ^ 0xff, 0x01000193) >>> 0;
  }
  return h;
}

export interface SpeakerTrack {
  /** The script speaker key, or "*" for a track holding every speaker. */
  speaker: string;
  samples: Float32Array;
}

export interface SceneSources {
  /** Voice clips for babble at the render's sample rate (simulator/scenes/babble-voices.ts). */
  babble?: (sampleRate: number) => Promise<Float32Array[]>;
}

const FULL_SCALE = 0.98;

function turnDownToFullScale(x: Float32Array): void {
  let peak = 0;
  for (const v of x) peak = Math.max(peak, Math.abs(v));
  if (peak > FULL_SCALE) {
    const gain = FULL_SCALE / peak;
    for (let i = 0; i < x.length; i++) x[i]! *= gain;
  }
}

/** The speech of every track after the room, summed (stage 1 and the sum of stage 2). */
export function roomMix(tracks: readonly SpeakerTrack[], sampleRate: number, scene: ResolvedScene): Float32Array {
  const length = Math.max(0, ...tracks.map((t) => t.samples.length));
  const mix = new Float32Array(length);
  for (const track of tracks) {
    const place = { distance_m: 1, gain_db: 0, ...scene.speakers[track.speaker] };
    let heard: Float32Array;
    if (scene.room !== null) {
      heard = reverberate(track.samples, scene.room, place, sampleRate, subSeed(scene.seed, 'room', track.speaker));
    } else {
      const gain = 10 ** (place.gain_db / 20) / Math.max(0.1, place.distance_m);
      heard = gain === 1 ? track.samples : track.samples.map((v) => v * gain);
    }
    for (let i = 0; i < heard.length; i++) mix[i]! += heard[i]!;
  }
  return mix;
}

/** The noises and interruptions of a scene, each at its SNR against `speech`, added into it in place. */
export async function addSceneNoise(
  speech: Float32Array,
  sampleRate: number,
  scene: ResolvedScene,
  sources: SceneSources = {},
): Promise<void> {
  // Every SNR is against the speech alone, not speech plus the noises added before.
  const speechPower = activePower(speech, sampleRate);
  const add = (noise: Float32Array, snrDb: number): void => {
    const noisePower = activePower(noise, sampleRate);
    if (speechPower === 0 || noisePower === 0) return;
    const gain = Math.sqrt(speechPower / (noisePower * 10 ** (snrDb / 10)));
    for (let i = 0; i < speech.length; i++) speech[i]! += gain * noise[i]!;
  };
  for (const [k, n] of scene.noise.entries()) {
    const seed = subSeed(scene.seed, 'noise', k, n.type);
    const length = speech.length;
    let noise: Float32Array;
    switch (n.type) {
      case 'pink':
        noise = pinkNoise(length, seed);
        break;
      case 'hvac':
        noise = hvacNoise(length, sampleRate, seed);
        break;
      case 'keyboard':
        noise = keyboardNoise(length, sampleRate, seed);
        break;
      case 'babble': {
        const clips = await (sources.babble ?? (await import('./babble-voices.ts')).babbleClips)(sampleRate);
        noise = babbleNoise(length, sampleRate, clips, seed);
        break;
      }
    }
    add(noise, n.snr_db);
  }
  if (scene.interruptions !== null && scene.interruptions.per_minute > 0) {
    add(
      interruptionNoise(speech.length, sampleRate, scene.interruptions.per_minute, subSeed(scene.seed, 'interruptions')),
      scene.interruptions.snr_db,
    );
  }
}

/** The channel stages in order. */
async function applyChannel(x: Float32Array, sampleRate: number, scene: ResolvedScene): Promise<Float32Array> {
  let out = x;
  for (const [k, stage] of scene.channel.entries()) {
    switch (stage.type) {
      case 'telephone':
        out = await telephoneBand(out, sampleRate);
        break;
      case 'opus':
        out = await opusCodec(out, sampleRate, stage.kbps);
        break;
      case 'mp3':
        out = await mp3Codec(out, sampleRate, stage.kbps);
        break;
      case 'clip':
        out = clip(out, stage.threshold_db);
        break;
      case 'dropouts':
        out = dropouts(out, sampleRate, stage.per_minute, stage.ms, subSeed(scene.seed, 'dropouts', k));
        break;
    }
  }
  return out;
}

/**
 * The whole scene over the speakers' tracks: the meeting as the microphone
 * hears it, float samples at `sampleRate`, no louder than full scale.
 */
export async function applyScene(
  tracks: readonly SpeakerTrack[],
  sampleRate: number,
  scene: ResolvedScene,
  sources: SceneSources = {},
): Promise<Float32Array> {
  const mix = roomMix(tracks, sampleRate, scene);
  // Codecs and clipping expect a signal within full scale, as a real input stage gives them.
  turnDownToFullScale(mix);
  await addSceneNoise(mix, sampleRate, scene, sources);
  turnDownToFullScale(mix);
  const out = await applyChannel(mix, sampleRate, scene);
  turnDownToFullScale(out);
  return out;
}

/** One line per preset, for --help and the README. */
export function describePresets(): string[] {
  return Object.entries(SCENE_PRESETS).map(([name, p]) => `${name}: ${p.description}`);
}
