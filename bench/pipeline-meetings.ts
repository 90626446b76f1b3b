/** The meetings the recognition and diarization parts share: rendered, decoded, their speech found. */
import { join } from 'node:path';
import { CONFIG_SECTIONS } from '../server/features/config/schemas.ts';
import { AudioDecoder } from '../server/pipeline/decode.ts';
import { uncontrolled, type PcmAudio, type SpeechRegion } from '../server/pipeline/types.ts';
import { detectSpeech } from '../server/pipeline/vad.ts';
import { loadScript } from '../simulator/scripts/load-script.ts';
import type { MeetingScript } from '../simulator/scripts/meeting-script.ts';
import { renderScript, type MeetingTruth } from '../simulator/synth/render-script.ts';

export interface Meeting {
  name: string;
  script: MeetingScript;
  truth: MeetingTruth;
  audio: PcmAudio;
  regions: SpeechRegion[];
  speechSeconds: number;
}

export async function prepareMeeting(name: string, dir: string): Promise<Meeting> {
  const script = await loadScript(name);
  const rendered = await renderScript(script, join(dir, `${name}.wav`));
  const audio = await new AudioDecoder().decode(rendered.wav, 'wav', uncontrolled());
  const regions = detectSpeech(audio, CONFIG_SECTIONS.vad.defaults);
  return { name, script, truth: rendered.truth, audio, regions, speechSeconds: regions.reduce((s, r) => s + r.end - r.start, 0) };
}
