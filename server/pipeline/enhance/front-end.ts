/**
 * The speech-enhancement front end: the transcription path's optional stage
 * between decoding and voice activity (server/pipeline/transcribe.ts).
 *
 *   off   the decoded audio goes on untouched;
 *   on    dereverberation (WPE) then denoising (RNNoise), each unless its
 *         switch in the vad section is off;
 *   auto  (default) each part runs only where the recording needs it: the
 *         denoiser when the blind SNR estimate is low, dereverberation when
 *         the blind RT60 estimate (taken after denoising, where the noise
 *         floor no longer hides the decays) shows a room clearly more
 *         reverberant than an ordinary one, and then the denoiser after it
 *         too (WPE leaves a residual late tail that RNNoise treats as noise;
 *         decision 067). A clean recording in an ordinary room is passed on
 *         unchanged.
 *
 * Dereverberation runs on the decoded signal (WPE's linear prediction model
 * holds there, not after a time-varying denoiser), the denoiser after it.
 * When the denoiser ran, its per-frame speech probability travels with the
 * audio so the voice-activity stage can use it (server/pipeline/vad.ts).
 * Output has the input's length, so word times stay those of the recording.
 * Thresholds and figures: docs/decisions/036-speech-enhancement-front-end.md.
 */
import { CancelledError, type PcmAudio, type StageControl } from '../types.ts';
import { analyseFrames } from '../vad.ts';
import { estimateSignal, type SignalEstimate } from './estimate.ts';
import { denoise, type DenoiseResult } from './rnnoise.ts';
import { dereverberate } from './wpe.ts';

export const ENHANCEMENT_MODES = ['auto', 'on', 'off'] as const;
export type EnhancementMode = (typeof ENHANCEMENT_MODES)[number];

/** The vad section's front-end fields. */
export interface EnhancementSettings {
  enhancement: EnhancementMode;
  dereverberation: boolean;
  denoise: boolean;
}

/**
 * Auto mode denoises below this peak-over-floor estimate. Measured: pink
 * noise at 15 dB SNR reads about 22 dB, at 10 dB about 16 dB; the clean
 * renders read above 70 dB. 35 dB leaves a quiet real room alone.
 */
const AUTO_DENOISE_BELOW_DB = 35;
/**
 * Auto mode dereverberates a recording it did not denoise above this blind
 * RT60 estimate. Measured on the raw signal: real clean readings
 * (pocketsphinx-testdata's LibriVox and card recordings, ordinary rooms)
 * 0.13–0.18 s, a 0.4 s room (DRR 3 dB) 0.25–0.29 s, synthetic dry speech
 * 0.08–0.10 s. 0.22 s leaves an ordinary real recording alone (decision 037).
 */
const AUTO_DEREVERBERATE_ABOVE_SECONDS = 0.22;
/**
 * The same bar for the estimate taken after denoising (noise hides decays,
 * so the raw estimate is not usable then). Measured after RNNoise: dry
 * synthetic speech 0.08–0.10 s, a real reading in pink noise at 15 dB
 * 0.12 s, a 0.4 s room 0.15–0.18 s.
 */
const AUTO_DEREVERBERATE_AFTER_DENOISE_ABOVE_SECONDS = 0.13;

export interface EnhancementOutcome {
  audio: PcmAudio;
  denoised: boolean;
  dereverberated: boolean;
  /** The estimates auto mode decided on (null in on/off modes). */
  estimate: SignalEstimate | null;
  /** RT60 estimate after denoising, when auto mode denoised. */
  rt60AfterDenoiseSeconds: number | null;
}

/**
 * The front end's three computations. In place, each runs here on the whole
 * recording; the gateway's worker threads run them in parts side by side
 * (off-thread.ts, decision 102) with the same results.
 */
export interface FrontEndPasses {
  /**
   * Whether passes started together run at once (on the workers). Then a
   * noisy recording's dereverberation starts beside its first denoising
   * rather than after it (it reads the decoded audio, not the denoised), and
   * is stopped if the estimate after denoising finds no reverberation.
   */
  concurrent: boolean;
  estimate: (audio: PcmAudio, control: StageControl) => Promise<SignalEstimate>;
  denoise: (audio: PcmAudio, control: StageControl) => Promise<DenoiseResult>;
  dereverberate: (audio: PcmAudio, control: StageControl) => Promise<PcmAudio>;
}

export const IN_PLACE_PASSES: FrontEndPasses = {
  concurrent: false,
  estimate: (audio) => Promise.resolve(estimateSignal(analyseFrames(audio))),
  denoise,
  dereverberate: (audio, control) => dereverberate(audio, control),
};

export async function enhanceSpeech(
  audio: PcmAudio,
  settings: EnhancementSettings,
  control: StageControl,
  passes: FrontEndPasses = IN_PLACE_PASSES,
): Promise<EnhancementOutcome> {
  const { denoise, dereverberate } = passes;
  const untouched: EnhancementOutcome = { audio, denoised: false, dereverberated: false, estimate: null, rt60AfterDenoiseSeconds: null };
  if (settings.enhancement === 'off' || audio.samples.length === 0 || (!settings.denoise && !settings.dereverberation)) return untouched;

  // Passes may run at once: the stage's progress only ever moves forward.
  let reported = 0;
  const forward = (f: number) => {
    if (f > reported) control.progress((reported = f));
  };
  const part = (from: number, to: number, over: StageControl = control): StageControl => ({
    ...over,
    progress: (f) => forward(from + (to - from) * Math.min(1, Math.max(0, f))),
  });

  if (settings.enhancement === 'on') {
    let out = audio;
    if (settings.dereverberation) out = await dereverberate(out, part(0, 0.7));
    await control.checkpoint();
    let probability: Float32Array | undefined;
    if (settings.denoise) {
      const d = await denoise(out, part(0.7, 1));
      out = d.audio;
      probability = d.speechProbability;
    }
    return { ...untouched, audio: withProbability(out, probability), denoised: settings.denoise, dereverberated: settings.dereverberation };
  }

  // auto
  const estimate = await passes.estimate(audio, control);
  await control.checkpoint();
  const noisy = settings.denoise && estimate.snrDb < AUTO_DENOISE_BELOW_DB;
  let firstPass: Awaited<ReturnType<typeof denoise>> | null = null;
  let rt60 = estimate.rt60Seconds;
  let rt60AfterDenoise: number | null = null;
  let early: Speculation<PcmAudio> | null = null;
  if (noisy) {
    // The denoising first, so its thread is taken before the dereverberation's parts queue.
    const denoising = denoise(audio, part(0, 0.2));
    if (passes.concurrent && settings.dereverberation) early = speculate(control, (c) => dereverberate(audio, part(0.2, 0.8, c)));
    try {
      firstPass = await denoising;
      rt60AfterDenoise = (await passes.estimate(firstPass.audio, control)).rt60Seconds;
      rt60 = rt60AfterDenoise;
      await control.checkpoint();
    } catch (err) {
      await early?.drop();
      throw err;
    }
  }
  const reverberant =
    settings.dereverberation && rt60 > (noisy ? AUTO_DEREVERBERATE_AFTER_DENOISE_ABOVE_SECONDS : AUTO_DEREVERBERATE_ABOVE_SECONDS);
  if (!reverberant) {
    await early?.drop();
    const out = firstPass === null ? audio : withProbability(firstPass.audio, firstPass.speechProbability);
    forward(1);
    return { audio: out, denoised: noisy, dereverberated: false, estimate, rt60AfterDenoiseSeconds: rt60AfterDenoise };
  }
  let out = await (early?.result ?? dereverberate(audio, part(0.2, 0.8)));
  await control.checkpoint();
  // A reverberant recording is denoised after WPE even when its SNR estimate
  // read clean: the tail WPE leaves behind is diffuse, noise-like energy, and
  // removing it helped real and synthetic speech alike (decision 067).
  const denoiseAfter = settings.denoise;
  let probability: Float32Array | undefined;
  if (denoiseAfter) {
    const d = await denoise(out, part(0.8, 1));
    out = d.audio;
    probability = d.speechProbability;
  }
  return {
    audio: withProbability(out, probability),
    denoised: denoiseAfter,
    dereverberated: true,
    estimate,
    rt60AfterDenoiseSeconds: rt60AfterDenoise,
  };
}

/** A pass started before it is known to be needed: its result, or a way to stop it. */
interface Speculation<T> {
  result: Promise<T>;
  /** Stops the pass and waits until it has ended (its thread too). */
  drop(): Promise<void>;
}

function speculate<T>(control: StageControl, run: (control: StageControl) => Promise<T>): Speculation<T> {
  const stop = new AbortController();
  const signal = AbortSignal.any([control.signal, stop.signal]);
  const own: StageControl = {
    ...control,
    signal,
    checkpoint: () => (signal.aborted ? Promise.reject(new CancelledError()) : control.checkpoint()),
  };
  const result = run(own);
  // A dropped pass rejects with CancelledError, which no one awaits but drop().
  result.catch(() => undefined);
  return {
    result,
    async drop() {
      stop.abort();
      await result.then(
        () => undefined,
        () => undefined,
      );
    },
  };
}

function withProbability(audio: PcmAudio, probability: Float32Array | undefined): PcmAudio {
  return probability === undefined ? audio : { ...audio, speechProbability: probability };
}
