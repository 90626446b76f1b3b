/**
 * A meeting script rendered with the voices a test gives its speakers, and
 * a recognizer that "hears" the render's true words: for tests of what
 * follows recognition (speaker identification) on real decoding, voice
 * activity and diarization. Renders are cached under .tmp/voices-meetings/
 * (the synthesizer's clips under the simulator's own cache).
 */
import { mkdir, stat } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadScript, REPO_ROOT } from '../../simulator/scripts/load-script.ts';
import { renderScript, truthPathFor, type MeetingTruth } from '../../simulator/synth/render-script.ts';
import type { Recognizer } from '../pipeline/types.ts';

export interface VoicedMeeting {
  wav: string;
  truth: MeetingTruth;
}

/** Renders `script` (a fixture name) with voices[key] for each speaker key it names ("engine:voice"), tidy dynamics. */
export async function voicedMeeting(script: string, voices: Readonly<Record<string, string>>): Promise<VoicedMeeting> {
  const dir = join(REPO_ROOT, '.tmp', 'voices-meetings');
  const name = `${script}.${Object.entries(voices)
    .map(([k, v]) => `${k}=${v.replace(/[^a-z0-9_]+/gi, '-')}`)
    .join('.')}`;
  const wav = join(dir, `${name}.wav`);
  const ready = await stat(wav).then(
    (s) => s.size > 1000,
    () => false,
  );
  if (!ready) {
    await mkdir(dir, { recursive: true });
    const loaded = await loadScript(script);
    const speakers = loaded.speakers.map((s) => (voices[s.key] === undefined ? s : { ...s, voice: voices[s.key] }));
    await renderScript({ ...loaded, speakers }, wav, { voiceSet: 'natural', scene: 'clean', dynamics: 'tidy' });
  }
  return { wav, truth: JSON.parse(readFileSync(truthPathFor(wav), 'utf8')) as MeetingTruth };
}

/** A recognizer whose words are those the truth says were spoken (what follows recognition is under test). */
export function truthRecognizer(truth: MeetingTruth): Recognizer {
  return {
    name: 'truth',
    available: () => Promise.resolve(true),
    transcribe: () => Promise.resolve(truth.words.map((w) => ({ text: w.text, start: w.start, end: w.end, confidence: 1 }))),
  };
}
