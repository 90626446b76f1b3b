/**
 * The front end and the recognizer on real human speech: Debian's
 * pocketsphinx-testdata recordings (five LibriVox readings of Sense and
 * Sensibility, one reader; five read card names), with their transcripts.
 * Each set is joined end to end into one recording (each file keeps its own
 * lead-in and tail of room background; inserted digital silence would read
 * as a noise floor no microphone has) and run through
 * the project's path in this process: enhance (off, on or auto) → voice
 * activity (the vad section's defaults) → pocketsphinx (stock en-us model,
 * no bias) → WER against the transcripts.
 *
 * Conditions: the recordings as they are, and the same rooms the synthetic
 * scenes use (simulator/scenes presets noise-only, reverb-only, office) laid
 * over the real speech, so the figures on synthetic voices have a
 * real-speech counterpart. The blind estimates auto decides on are printed
 * for every recording (decision 036's thresholds are checked against them).
 *
 *   node bench/quality-real-speech.ts [--scenes clean,noise-only] [--modes off,on,auto] [--sets librivox,cards]
 *       [--combine mean|energy|max|front-end]   how voice activity uses the denoiser's probability
 *       [--recognizer-args "-remove_silence no"] extra pocketsphinx options (measurements)
 *       [--processes N] [--min-group-seconds S] [--warm-up-seconds S]
 *           recognizer processes per recording, the shortest group given one, the speech decoded
 *           before each group (decision 094; default 1 process: the figures of one decoder)
 *
 * A set named script:<name> (e.g. script:two-person-call) is that meeting
 * rendered with the natural voices in the scene, through the same path: the
 * synthetic counterpart of a quality-bench cell without the gateway.
 *
 * Prints one line per cell and a JSON summary at the end. Needs the
 * pocketsphinx-testdata package (/usr/share/pocketsphinx/test/data).
 */
import { readFileSync } from 'node:fs';
import { parseWav } from '../common/audio/wav.ts';
import { PocketSphinxRecognizer } from '../server/adapters/asr/pocketsphinx.ts';
import { CONFIG_SECTIONS } from '../server/features/config/schemas.ts';
import { enhanceSpeech, type EnhancementMode } from '../server/pipeline/enhance/front-end.ts';
import { estimateSignal } from '../server/pipeline/enhance/estimate.ts';
import { analyseFrames, detectSpeech } from '../server/pipeline/vad.ts';
import { PIPELINE_SAMPLE_RATE, uncontrolled, type PcmAudio } from '../server/pipeline/types.ts';
import { AudioDecoder } from '../server/pipeline/decode.ts';
import { applyScene, resolveScene } from '../simulator/scenes/scene.ts';
import { loadScript } from '../simulator/scripts/load-script.ts';
import { renderScript } from '../simulator/synth/render-script.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { wordErrorRate } from '../simulator/score/word-error-rate.ts';
import { readFlags, runCli } from './lib.ts';

const DATA = '/usr/share/pocketsphinx/test/data';

export interface Utterance {
  file: string;
  words: string[];
}

/** A testdata transcription file: `<s> words </s> (id)` per line. */
function readTranscription(dir: string, name: string): Utterance[] {
  return readFileSync(`${dir}/${name}`, 'utf8')
    .split('\n')
    .map((line) => /^(?:<s>)?\s*(.*?)\s*(?:<\/s>)?\s*\(([^)]+)\)\s*$/.exec(line.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ file: `${dir}/${m[2]!.split('/').pop()!}.wav`, words: m[1]!.split(/\s+/).filter(Boolean) }));
}

/** The real recorded speech sets of pocketsphinx-testdata with their transcripts (also read by bench/pruning.ts). */
export const REAL_SPEECH_SETS: Record<string, () => Utterance[]> = {
  librivox: () => readTranscription(`${DATA}/librivox`, 'transcription'),
  cards: () => readTranscription(`${DATA}/cards`, 'cards.transcription'),
};

/** 16-bit mono 16 kHz WAV data as floats (the testdata files are all so), read with the project's one WAV reader. */
export function readPcm16Wav(file: string): Float32Array {
  const { samples } = parseWav(readFileSync(file));
  return Float32Array.from(samples, (v) => v / 32768);
}

export function joinUtterances(utterances: readonly Utterance[]): { samples: Float32Array; words: string[] } {
  const parts = utterances.map((u) => readPcm16Wav(u.file));
  const samples = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    samples.set(p, at);
    at += p.length;
  }
  return { samples, words: utterances.flatMap((u) => u.words) };
}

function pcm(samples: Float32Array): PcmAudio {
  return { sampleRate: PIPELINE_SAMPLE_RATE, samples, durationSeconds: samples.length / PIPELINE_SAMPLE_RATE };
}

export interface RealSpeechCell {
  set: string;
  scene: string;
  mode: EnhancementMode;
  words: number;
  wer: number;
  snr_db: number;
  rt60_s: number;
  denoised: boolean;
  dereverberated: boolean;
}

/** The denoiser's probability as the --combine choice has voice activity use it. */
function withCombination(audio: PcmAudio, combine: string): PcmAudio {
  const p = audio.speechProbability;
  if (p === undefined || combine === 'mean') return audio;
  if (combine === 'energy') return { sampleRate: audio.sampleRate, samples: audio.samples, durationSeconds: audio.durationSeconds };
  const own = analyseFrames(audio).probability;
  // detectSpeech takes the mean of its own and the given probability: give what makes that mean the wanted one.
  const wanted = new Float32Array(p.length);
  for (let i = 0; i < p.length; i++) {
    const o = own[Math.max(0, i - 1)] ?? 0;
    const target = combine === 'max' ? Math.max(o, p[i]!) : p[i]!;
    wanted[i] = 2 * target - o;
  }
  return { ...audio, speechProbability: wanted };
}

async function main(): Promise<void> {
  const values = readFlags(
    process.argv.slice(2),
    {
      scenes: { type: 'string' },
      modes: { type: 'string' },
      sets: { type: 'string' },
      combine: { type: 'string' },
      'recognizer-args': { type: 'string' },
      processes: { type: 'string' },
      'min-group-seconds': { type: 'string' },
      'warm-up-seconds': { type: 'string' },
    },
    'node bench/quality-real-speech.ts [--scenes S,S] [--modes off,on,auto] [--sets librivox,cards] [--combine C] [--recognizer-args "-opt value"] [--processes N] [--min-group-seconds S] [--warm-up-seconds S]',
  );
  const list = (v: string | undefined, d: string[]) =>
    v
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean) ?? d;
  const scenes = list(values.scenes, ['clean', 'noise-only', 'reverb-only', 'office']);
  const modes = list(values.modes, ['off', 'on', 'auto']) as EnhancementMode[];
  const sets = list(values.sets, Object.keys(REAL_SPEECH_SETS));
  const vad = CONFIG_SECTIONS.vad.defaults;
  const extraArgs = values['recognizer-args']?.split(/\s+/).filter(Boolean) ?? [];
  const combine = values.combine ?? 'mean';
  const recognizer = new PocketSphinxRecognizer({
    vocabularyBias: 'off',
    extraArgs,
    processes: Number(values.processes ?? 1),
    ...(values['min-group-seconds'] !== undefined ? { minGroupSeconds: Number(values['min-group-seconds']) } : {}),
    ...(values['warm-up-seconds'] !== undefined ? { warmUpSeconds: Number(values['warm-up-seconds']) } : {}),
  });
  const work = mkdtempSync(join(tmpdir(), 'mas-real-speech-'));
  const cells: RealSpeechCell[] = [];
  for (const set of sets) {
    const synthetic = set.startsWith('script:') ? await loadScript(set.slice('script:'.length)) : null;
    const joined = synthetic === null ? joinUtterances(REAL_SPEECH_SETS[set]!()) : { samples: new Float32Array(0), words: [] as string[] };
    for (const scene of scenes) {
      let audio: PcmAudio;
      if (synthetic !== null) {
        const rendered = await renderScript(synthetic, join(work, `${set.slice(7)}.${scene}.wav`), { voiceSet: 'natural', scene, seed: 1 });
        joined.words = rendered.truth.words.map((w) => w.text);
        audio = await new AudioDecoder().decode(rendered.wav, 'wav', uncontrolled());
      } else {
        audio = pcm(
          scene === 'clean'
            ? joined.samples
            : await applyScene([{ speaker: 'reader', samples: joined.samples }], PIPELINE_SAMPLE_RATE, resolveScene(scene, 1)),
        );
      }
      const estimate = estimateSignal(analyseFrames(audio));
      for (const mode of modes) {
        const out = await enhanceSpeech(
          audio,
          { enhancement: mode, denoise: vad.denoise, dereverberation: vad.dereverberation },
          uncontrolled(),
        );
        const regions = detectSpeech(withCombination(out.audio, combine), { ...vad });
        const words = await recognizer.transcribe(
          out.audio,
          regions,
          { language: 'en', customWords: [], initialPrompt: '' },
          uncontrolled(),
        );
        const wer = wordErrorRate(
          joined.words,
          words.map((w) => w.text),
        ).wer;
        const cell: RealSpeechCell = {
          set,
          scene,
          mode,
          words: joined.words.length,
          wer: Math.round(wer * 10000) / 10000,
          snr_db: Math.round(estimate.snrDb * 10) / 10,
          rt60_s: Math.round(estimate.rt60Seconds * 1000) / 1000,
          denoised: out.denoised || (mode === 'on' && vad.denoise),
          dereverberated: out.dereverberated || (mode === 'on' && vad.dereverberation),
        };
        cells.push(cell);
        console.log(
          `${set} ${scene} ${mode}: WER ${(wer * 100).toFixed(1)} % (${joined.words.length} words); SNR est ${cell.snr_db} dB, RT60 est ${cell.rt60_s} s` +
            (out.rt60AfterDenoiseSeconds !== null ? ` (${out.rt60AfterDenoiseSeconds.toFixed(3)} s after denoising)` : '') +
            `; ran: ${[cell.dereverberated ? 'WPE' : '', cell.denoised ? 'RNNoise' : ''].filter(Boolean).join('+') || 'nothing'}`,
        );
      }
    }
  }
  console.log(JSON.stringify(cells));
}

if (import.meta.url === `file://${process.argv[1]}`) await runCli(main);
