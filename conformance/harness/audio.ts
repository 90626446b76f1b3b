/**
 * The speech the suite imports: rendered once by simulator/render-conformance-speech.ts
 * and shipped as files (conformance/audio/<name>.wav with <name>.truth.json),
 * so a run needs no synthesizer and no ffmpeg. Paths are relative to this
 * module, which finds the same files in a checkout and in the built package
 * The release bundle carries the files inside itself (shipped.ts).
 */
import path from 'node:path';
import { readShippedFile, shippedFilePath } from '../shipped.ts';

/** Where the shipped speech lives (one level up from harness/, in both layouts). */
const AUDIO_DIR = path.join(import.meta.dirname, '..', 'audio');

export interface SpeechTruth {
  title: string;
  language: string;
  sample_rate: number;
  duration: number;
  speakers: Array<{ key: string; name: string }>;
  words: Array<{ text: string; start: number; end: number; speaker: string }>;
  turns: Array<{ speaker: string; start: number; end: number }>;
  lines: Array<{ speaker: string; text: string; start: number; end: number }>;
}

/** The path of a shipped speech file: speechPath('tiny') → …/conformance/audio/tiny.wav. */
export function speechPath(name: string, extension = 'wav'): string {
  return shippedFilePath(`conformance/audio/${name}.${extension}`, onDisk(name, extension));
}

/** Where the file is in a checkout (the bundle reads its embedded copy instead). */
function onDisk(name: string, extension: string): string {
  return path.join(AUDIO_DIR, `${name}.${extension}`);
}

const bytesCache = new Map<string, Promise<Uint8Array>>();

/** The bytes of a shipped speech file, read once per process. */
export function speechBytes(name: string, extension = 'wav'): Promise<Uint8Array> {
  const file = onDisk(name, extension);
  let cached = bytesCache.get(file);
  if (cached === undefined) {
    cached = readShippedFile(`conformance/audio/${name}.${extension}`, file).then((b) => new Uint8Array(b));
    bytesCache.set(file, cached);
  }
  return cached;
}

/** What a shipped speech file says, and when (written by the renderer from the samples it placed). */
export async function speechTruth(name: string): Promise<SpeechTruth> {
  return JSON.parse(
    (await readShippedFile(`conformance/audio/${name}.truth.json`, onDisk(name, 'truth.json'))).toString('utf8'),
  ) as SpeechTruth;
}
