/**
 * The real parts of the pipeline, as the gateway runs them: the in-process
 * decoder with ffmpeg behind it, the speech-enhancement front end, the
 * voice-activity detector, the recognizers (pocketsphinx by default), the
 * diarizer and the summarizers. The front end and the diarizer run on a
 * worker thread (off-thread.ts).
 */
import { AFTER_TRANSCRIPTION } from './pipeline/after-transcription.ts';
import { createRecognizers } from './adapters/asr/registry.ts';
import { createSummarizers } from './adapters/summarize/registry.ts';
import { isTemplateId, TEMPLATE_IDS } from './adapters/summarize/templates.ts';
import { AudioDecoder } from './pipeline/decode.ts';
import { assignSpeakers } from './pipeline/diarize.ts';
import { biasTrieModelOffThread, offThreadDiarizer, offThreadEnhancer } from './pipeline/off-thread.ts';
import { detectSpeech } from './pipeline/vad.ts';
import type { SummarizerCatalog } from './features/summaries/index.ts';
import type { TranscriptionParts } from './pipeline/transcribe.ts';

/** The parts of the pipeline the gateway runs; a test may replace any of them (deps.ts, `pipeline`). */
export interface PipelineParts extends TranscriptionParts {
  summarizers: SummarizerCatalog;
  /** Throws an Error naming the problem for a provider or model that cannot be used. */
  checkRecognizer(provider: string | undefined, model: string | undefined): void;
}

export function realPipeline(opts: { dataDir: string; env: NodeJS.ProcessEnv }): PipelineParts {
  // pocketsphinx's adapted language models are built on the worker thread too (decision 087).
  const recognizers = createRecognizers({ dataDir: opts.dataDir, env: opts.env, buildBiasedModel: biasTrieModelOffThread });
  const summarizers = createSummarizers(opts.env);
  return {
    decoder: new AudioDecoder(),
    // The speech-enhancement front end, as the vad section the transcription is given sets it (decision 036),
    // and the diarizer run on the worker thread, so HTTP is served meanwhile (decision 035).
    enhance: offThreadEnhancer(),
    detectSpeech,
    diarize: offThreadDiarizer(),
    assignSpeakers,
    // The stages added after every transcription (pipeline/after-transcription.ts, decision 119).
    afterTranscription: AFTER_TRANSCRIPTION,
    recognizerFor: (provider, model) => recognizers.byProvider(provider, model),
    checkRecognizer: (provider, model) => {
      recognizers.byProvider(provider, model);
    },
    summarizers: {
      byModel: (model, modelName) => summarizers.byModel(model, modelName),
      isTemplate: isTemplateId,
      templates: TEMPLATE_IDS,
    },
  };
}
