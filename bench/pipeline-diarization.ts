/** The diarization part of the pipeline benchmark (bench/pipeline.ts): speaker attribution of the real diarizer. */
import { CONFIG_SECTIONS } from '../server/features/config/schemas.ts';
import { assignSpeakers, diarize } from '../server/pipeline/diarize.ts';
import { uncontrolled, type DiarizationSettings, type RecognizedWord } from '../server/pipeline/types.ts';
import { speakerAttribution } from '../simulator/score/speaker-attribution.ts';
import { fmt, round } from './lib.ts';
import type { Meeting } from './pipeline-meetings.ts';
interface DiarizationMode {
  speakers_found: number;
  /** The ground-truth words, attributed through the diarizer's turns: the diarizer alone. */
  accuracy: number;
  /** The recognized words (with bias), attributed the same way: the pipeline's figure. */
  accuracy_recognized_words: number | null;
  seconds: number;
  x_real_time: number;
}

export interface DiarizationFigures {
  audio_s: number;
  true_speakers: number;
  distinct_voices: boolean;
  automatic: DiarizationMode;
  true_count: DiarizationMode;
}

export async function benchDiarization(
  meetings: readonly Meeting[],
  distinct: ReadonlySet<string>,
  recognized: ReadonlyMap<string, RecognizedWord[]>,
  log: (line: string) => void,
): Promise<Record<string, DiarizationFigures>> {
  const defaults = CONFIG_SECTIONS.diarization.defaults as DiarizationSettings;
  const out: Record<string, DiarizationFigures> = {};
  for (const m of meetings) {
    const trueCount = m.script.speakers.length;
    const mode = async (speakerCount: number | null): Promise<DiarizationMode> => {
      const t0 = performance.now();
      const turns = await diarize(m.audio, m.regions, { ...defaults, speaker_count: speakerCount }, uncontrolled());
      const seconds = (performance.now() - t0) / 1000;
      const score = (words: readonly { text: string; start: number; end: number }[]) => {
        const clusters = assignSpeakers(words, turns);
        return speakerAttribution(
          words.map((w, i) => ({ text: w.text, start: w.start, end: w.end, cluster: clusters[i]! })),
          m.truth.words,
        ).accuracy;
      };
      const rec = recognized.get(m.name);
      const result: DiarizationMode = {
        speakers_found: new Set(turns.map((t) => t.speaker)).size,
        accuracy: round(score(m.truth.words), 4),
        accuracy_recognized_words: rec === undefined || rec.length === 0 ? null : round(score(rec), 4),
        seconds: round(seconds, 3),
        x_real_time: round(m.audio.durationSeconds / seconds, 0),
      };
      log(
        `pipeline: diarization ${m.name} ${speakerCount === null ? 'automatic' : `${speakerCount} speakers`}: ${result.speakers_found} found, ` +
          `accuracy ${fmt(result.accuracy * 100, 1)} %${result.accuracy_recognized_words === null ? '' : ` (recognized words ${fmt(result.accuracy_recognized_words * 100, 1)} %)`}`,
      );
      return result;
    };
    out[m.name] = {
      audio_s: round(m.audio.durationSeconds, 2),
      true_speakers: trueCount,
      distinct_voices: distinct.has(m.name),
      automatic: await mode(null),
      true_count: await mode(trueCount),
    };
  }
  return out;
}
