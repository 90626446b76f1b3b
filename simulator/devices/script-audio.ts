/**
 * A fixture meeting script as the samples a virtual device plays: rendered by
 * simulator/synth (the voice registry's voices on one timeline, 16 kHz mono
 * 16-bit) with its ground truth, kept in memory per script name, voice set
 * and scene for this process.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadScript } from '../scripts/load-script.ts';
import { renderScript, type MeetingTruth } from '../synth/render-script.ts';
import type { ResolvedScene } from '../scenes/scene.ts';
import type { VoiceSet } from '../synth/voices.ts';
import { parseWav } from '../../common/audio/wav.ts';
import { DEVICE_SAMPLE_RATE } from './timeline.ts';

export interface ScriptAudio {
  script: string;
  samples: Int16Array;
  truth: MeetingTruth;
}

const rendered = new Map<string, Promise<ScriptAudio>>();

/** Only bare fixture names: a device never reads an arbitrary path. */
const SCRIPT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

export interface ScriptAudioOptions {
  cacheDir?: string;
  /** Default "natural" (simulator/synth/voices.ts). */
  voiceSet?: VoiceSet;
  /** The scene to play the script in; default the script's own, else clean. */
  scene?: ResolvedScene;
}

export function loadScriptAudio(name: string, opts: ScriptAudioOptions = {}): Promise<ScriptAudio> {
  const key = `${opts.voiceSet ?? 'natural'}/${name}${opts.scene === undefined ? '' : `\n${JSON.stringify(opts.scene)}`}`;
  let pending = rendered.get(key);
  if (pending === undefined) {
    pending = render(name, opts);
    rendered.set(key, pending);
    pending.catch(() => rendered.delete(key)); // a failure is not remembered: the next plug tries again
  }
  return pending;
}

async function render(name: string, opts: ScriptAudioOptions): Promise<ScriptAudio> {
  if (!SCRIPT_NAME.test(name) || name.endsWith('.json'))
    throw new Error(`"${name.slice(0, 60)}" is not the name of a fixture meeting script`);
  const script = await loadScript(name);
  const dir = await mkdtemp(path.join(tmpdir(), 'mas-device-script-'));
  try {
    const result = await renderScript(script, path.join(dir, 'script.wav'), {
      ...(opts.cacheDir !== undefined ? { cacheDir: opts.cacheDir } : {}),
      ...(opts.scene !== undefined ? { scene: opts.scene, seed: opts.scene.seed } : {}),
      ...(opts.voiceSet !== undefined ? { voiceSet: opts.voiceSet } : {}),
    });
    const pcm = parseWav(await readFile(result.wav));
    if (pcm.sampleRate !== DEVICE_SAMPLE_RATE || pcm.channels !== 1)
      throw new Error(`the renderer gave ${pcm.sampleRate} Hz, ${pcm.channels} channels; expected 16 kHz mono`);
    return { script: name, samples: pcm.samples, truth: result.truth };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
