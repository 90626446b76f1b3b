/**
 * The recognition part of the pipeline benchmark (bench/pipeline.ts):
 * pocketsphinx's speed and word error rate on the synthetic meetings, without
 * and with the custom-words bias (CUSTOM_WORDS).
 */
import { PocketSphinxRecognizer } from '../server/adapters/asr/pocketsphinx.ts';
import { uncontrolled, type RecognizedWord } from '../server/pipeline/types.ts';
import type { MeetingScript } from '../simulator/scripts/meeting-script.ts';
import { normalizeWords } from '../simulator/score/normalize-words.ts';
import { alignWords, wordErrorRate } from '../simulator/score/word-error-rate.ts';
import { cpuSecondsWithChildren, fmt, round, rounds, type Rounds } from './lib.ts';
import type { PipelineConfig } from './pipeline-config.ts';
import type { Meeting } from './pipeline-meetings.ts';
/**
 * The custom words of each fixture meeting: the people's names (the
 * attendees, as a user would list them, and the names said in the meeting),
 * days and places said, and the meeting's domain terms. Scripts not listed
 * here get their speakers' names and the capitalised words inside sentences.
 */
export const CUSTOM_WORDS: Record<string, string[]> = {
  'two-person-call': [
    'Alice',
    'Moreau',
    'Ben',
    'Okafor',
    'Priya',
    'Friday',
    'Thursday',
    'European',
    'roadmap',
    'billing',
    'portal',
    'invoices',
    'sprint',
    'blocker',
  ],
  'four-person-standup': [
    'Dana',
    'Whitfield',
    'Emeka',
    'Obi',
    'Fiona',
    'Grant',
    'Hiro',
    'Tanaka',
    'Monday',
    'Wednesday',
    'Friday',
    'roadmap',
    'dashboard',
    'migration',
    'staging',
    'sandbox',
  ],
  'long-silences': ['Grace', 'Lindqvist', 'Omar', 'Haddad', 'March', 'spreadsheet', 'contract', 'sprint', 'legal'],
  'near-identical-voices': ['Karen', 'Laura', 'Vogel', 'Tuesday', 'vendor', 'analytics', 'rollout', 'roadmap', 'audit'],
  tiny: ['Alice', 'Moreau', 'Ben', 'Okafor', 'Friday', 'release', 'budget'],
};

export function customWordsFor(name: string, script: MeetingScript): string[] {
  const listed = CUSTOM_WORDS[name];
  if (listed !== undefined) return listed;
  const words = new Set<string>(script.speakers.flatMap((s) => s.name.split(/\s+/)));
  for (const line of script.lines) {
    // A capital after a word (not after a sentence end) is a name or a proper noun.
    for (const m of line.text.matchAll(/(?<=[\p{L},]\s+)(\p{Lu}\p{Ll}+)/gu)) if (m[1] !== 'I') words.add(m[1]!);
  }
  return [...words].slice(0, 16);
}

interface CustomWordHits {
  /** Occurrences of custom words in the truth. */
  in_truth: number;
  /** Of those, recognized in place (a match in the WER alignment). */
  heard: number;
  /** Custom words in the hypothesis where the truth has something else, or nothing. */
  false_alarms: number;
}

function customWordHits(truth: readonly string[], hypothesis: readonly string[], custom: readonly string[]): CustomWordHits {
  const set = new Set(custom.flatMap((w) => normalizeWords(w)));
  const ref = truth.flatMap((w) => normalizeWords(w));
  const hyp = hypothesis.flatMap((w) => normalizeWords(w));
  const hits = { in_truth: ref.filter((t) => set.has(t)).length, heard: 0, false_alarms: 0 };
  for (const step of alignWords(ref, hyp)) {
    if (step.op === 'match' && set.has(ref[step.ref]!)) hits.heard += 1;
    if ((step.op === 'substitution' || step.op === 'insertion') && set.has(hyp[step.hyp]!)) hits.false_alarms += 1;
  }
  return hits;
}

interface RecognitionSetting {
  custom_words: number;
  wer: number;
  substitutions: number;
  deletions: number;
  insertions: number;
  hypothesis_words: number;
  custom_word_hits: CustomWordHits;
  /** Wall seconds per second of audio (lower is faster). */
  rtf_wall: Rounds;
  /** CPU seconds (this process and the recognizer's processes) per second of audio. */
  rtf_cpu: Rounds;
  wall_s: number[];
  /** True when a later round gave other words than the first (the WER is the first round's). */
  words_varied: boolean;
}

export interface RecognitionFigures {
  audio_s: number;
  speech_s: number;
  reference_words: number;
  custom_words: string[];
  without_bias: RecognitionSetting;
  with_bias: RecognitionSetting;
}

export async function benchRecognition(
  meetings: readonly Meeting[],
  cfg: PipelineConfig,
  log: (line: string) => void,
  recognized: Map<string, RecognizedWord[]>,
): Promise<Record<string, unknown>> {
  const recognizer = new PocketSphinxRecognizer();
  if (!(await recognizer.available())) throw new Error('pocketsphinx_continuous or its English model is not installed');
  const out: Record<string, RecognitionFigures | { error: string }> = {};
  for (const m of meetings) {
    const custom = customWordsFor(m.name, m.script);
    const settings = { without_bias: [] as string[], with_bias: custom };
    const runs: Record<keyof typeof settings, { words: RecognizedWord[]; wall: number; cpu: number }[]> = {
      without_bias: [],
      with_bias: [],
    };
    const roundsOf = cfg.recognition[m.name] ?? 1;
    for (let r = 0; r < roundsOf; r++) {
      const order = r % 2 === 0 ? (['without_bias', 'with_bias'] as const) : (['with_bias', 'without_bias'] as const);
      for (const key of order) {
        const c0 = cpuSecondsWithChildren();
        const t0 = performance.now();
        const words = await recognizer.transcribe(
          m.audio,
          m.regions,
          { language: 'en', customWords: settings[key], initialPrompt: '' },
          uncontrolled(),
        );
        const wall = (performance.now() - t0) / 1000;
        runs[key].push({ words, wall, cpu: cpuSecondsWithChildren() - c0 });
        log(
          `pipeline: recognition ${m.name} ${key.replace('_', ' ')} round ${r + 1}/${roundsOf}: ${words.length} words in ${fmt(wall, 1)} s (${fmt(wall / m.audio.durationSeconds, 3)} × real time)`,
        );
      }
    }
    const reference = m.truth.words.map((w) => w.text);
    const setting = (key: keyof typeof settings): RecognitionSetting => {
      const list = runs[key];
      const first = list[0]!.words;
      const wer = wordErrorRate(
        reference,
        first.map((w) => w.text),
      );
      const text = (ws: RecognizedWord[]) => ws.map((w) => w.text).join(' ');
      return {
        custom_words: settings[key].length,
        wer: round(wer.wer, 4),
        substitutions: wer.substitutions,
        deletions: wer.deletions,
        insertions: wer.insertions,
        hypothesis_words: first.length,
        custom_word_hits: customWordHits(
          reference,
          first.map((w) => w.text),
          custom,
        ),
        rtf_wall: rounds(
          list.map((x) => x.wall / m.audio.durationSeconds),
          4,
          true,
        ),
        rtf_cpu: rounds(
          list.map((x) => x.cpu / m.audio.durationSeconds),
          4,
          true,
        ),
        wall_s: list.map((x) => round(x.wall, 2)),
        words_varied: list.some((x) => text(x.words) !== text(first)),
      };
    };
    recognized.set(m.name, runs.with_bias[0]!.words);
    out[m.name] = {
      audio_s: round(m.audio.durationSeconds, 2),
      speech_s: round(m.speechSeconds, 2),
      reference_words: reference.length,
      custom_words: custom,
      without_bias: setting('without_bias'),
      with_bias: setting('with_bias'),
    };
  }
  return out;
}
