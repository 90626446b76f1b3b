/**
 * The simulator CLI's scene flags → a scene spec (simulator/scenes/scene.ts).
 *
 *   --scene office                         a preset (clean, office, hard, ...)
 *   --rt60 0.4 [--drr 3]                   a room
 *   --noise pink:15[,keyboard:25]          noises at SNR dB
 *   --interruptions 2:10                   per minute : SNR dB
 *   --channel mp3:32[,clip:6,dropouts:4:80] channel stages in order
 *   --distance S1=2.5,S2=1  --gain S2=-4   where speakers sit, how loud they talk
 *   --seed 7
 *
 * Explicit flags override the preset's (or the script's) field of the same
 * name; --scene replaces a scene the script file gives.
 */
import { NOISE_TYPES, SceneError, type SceneSpec } from './scene.ts';

export interface SceneFlagValues {
  scene?: string;
  rt60?: string;
  drr?: string;
  noise?: string;
  interruptions?: string;
  channel?: string;
  distance?: string;
  gain?: string;
  seed?: string;
}

/** The parseArgs options of the scene flags. */
export const SCENE_FLAG_OPTIONS = {
  scene: { type: 'string' },
  rt60: { type: 'string' },
  drr: { type: 'string' },
  noise: { type: 'string' },
  interruptions: { type: 'string' },
  channel: { type: 'string' },
  distance: { type: 'string' },
  gain: { type: 'string' },
  seed: { type: 'string' },
} as const;

export const SCENE_FLAGS_USAGE = `      --scene    an acoustic scene preset (see below); default: the script's "scene", else clean
      --rt60 <s> [--drr <dB>]     room reverberation time and direct-to-reverberant ratio (default 3 dB)
      --noise <type>:<snr dB>[,...]   ${NOISE_TYPES.join(', ')}; SNR against the speech's active power
      --interruptions <per minute>:<snr dB>   phone rings and knocks
      --channel <stage>[,...]     telephone, opus:<kb/s>, mp3:<kb/s>, clip:<dB below peak>, dropouts:<per minute>[:<ms>]
      --distance <key>=<m>[,...]  --gain <key>=<dB>[,...]   where each speaker sits, how loud they talk
      --seed <n>  the scene's random seed (default 1): same script, voices, scene and seed → same bytes`;

function number(text: string, flag: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n)) throw new SceneError(`${flag} expects a number, got "${text}"`);
  return n;
}

function pairs(text: string, flag: string): [string, number][] {
  return text.split(',').map((part) => {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new SceneError(`${flag} expects <speaker key>=<number>[,...], got "${part}"`);
    return [part.slice(0, eq).trim(), number(part.slice(eq + 1), flag)];
  });
}

/** True when any scene flag was given. */
export function hasSceneFlags(values: SceneFlagValues): boolean {
  return Object.keys(SCENE_FLAG_OPTIONS).some((k) => values[k as keyof SceneFlagValues] !== undefined);
}

/** The seed flag alone (undefined when absent). */
export function seedFlag(values: SceneFlagValues): number | undefined {
  if (values.seed === undefined) return undefined;
  const n = number(values.seed, '--seed');
  if (!Number.isInteger(n) || n < 0 || n > 2 ** 31 - 1)
    throw new SceneError(`--seed expects an integer from 0 to 2147483647, got "${values.seed}"`);
  return n;
}

/**
 * The scene the flags ask for, starting from `base` (the script file's scene)
 * unless --scene names a preset. Validation of ranges happens in resolveScene.
 */
export function sceneFromFlags(values: SceneFlagValues, base?: string | SceneSpec): SceneSpec {
  const start: SceneSpec =
    values.scene !== undefined ? { preset: values.scene } : typeof base === 'string' ? { preset: base } : { ...(base ?? {}) };
  const spec: SceneSpec = { ...start };
  if (values.rt60 !== undefined || values.drr !== undefined) {
    const rt60 = values.rt60 !== undefined ? number(values.rt60, '--rt60') : undefined;
    const presetRoom = typeof spec.room === 'object' && spec.room !== null ? spec.room : undefined;
    const room = {
      rt60: rt60 ?? presetRoom?.rt60 ?? NaN,
      drr_db: values.drr !== undefined ? number(values.drr, '--drr') : (presetRoom?.drr_db ?? 3),
    };
    if (Number.isNaN(room.rt60)) throw new SceneError('--drr needs a room: give --rt60 too (or a scene with a room)');
    spec.room = rt60 === 0 ? null : room;
  }
  if (values.noise !== undefined) {
    spec.noise =
      values.noise === 'none'
        ? []
        : values.noise.split(',').map((part) => {
            const [type, snr, extra] = part.split(':');
            if (type === undefined || snr === undefined || extra !== undefined || !(NOISE_TYPES as readonly string[]).includes(type)) {
              throw new SceneError(`--noise expects <type>:<snr dB> with type one of ${NOISE_TYPES.join(', ')}, got "${part}"`);
            }
            return { type: type as (typeof NOISE_TYPES)[number], snr_db: number(snr, '--noise') };
          });
  }
  if (values.interruptions !== undefined) {
    const [perMinute, snr, extra] = values.interruptions.split(':');
    if (perMinute === undefined || snr === undefined || extra !== undefined)
      throw new SceneError(`--interruptions expects <per minute>:<snr dB>, got "${values.interruptions}"`);
    spec.interruptions = { per_minute: number(perMinute, '--interruptions'), snr_db: number(snr, '--interruptions') };
  }
  if (values.channel !== undefined) {
    spec.channel =
      values.channel === 'none'
        ? []
        : values.channel.split(',').map((part) => {
            const [type, a, b] = part.split(':');
            switch (type) {
              case 'telephone':
                if (a !== undefined) break;
                return { type: 'telephone' as const };
              case 'opus':
              case 'mp3':
                if (a === undefined || b !== undefined) break;
                return { type, kbps: number(a, '--channel') };
              case 'clip':
                if (a === undefined || b !== undefined) break;
                return { type: 'clip' as const, threshold_db: number(a, '--channel') };
              case 'dropouts':
                if (a === undefined) break;
                return {
                  type: 'dropouts' as const,
                  per_minute: number(a, '--channel'),
                  ...(b !== undefined ? { ms: number(b, '--channel') } : {}),
                };
            }
            throw new SceneError(
              `--channel expects telephone, opus:<kb/s>, mp3:<kb/s>, clip:<dB>, dropouts:<per minute>[:<ms>]; got "${part}"`,
            );
          });
  }
  if (values.distance !== undefined || values.gain !== undefined) {
    const speakers: Record<string, { distance_m?: number; gain_db?: number }> = {};
    for (const [key, m] of values.distance !== undefined ? pairs(values.distance, '--distance') : [])
      speakers[key] = { ...speakers[key], distance_m: m };
    for (const [key, db] of values.gain !== undefined ? pairs(values.gain, '--gain') : [])
      speakers[key] = { ...speakers[key], gain_db: db };
    spec.speakers = { ...(typeof spec.speakers === 'object' ? spec.speakers : {}), ...speakers };
  }
  return spec;
}
