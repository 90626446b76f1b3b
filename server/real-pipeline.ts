/**
 * The real parts of the pipeline, as the gateway runs them: the in-process
 * decoder with ffmpeg behind it, the speech-enhancement front end, the
 * voice-activity detector, the recognizers (pocketsphinx by default), the
 * diarizer and the summarizers. The front end and the diarizer run on a
 * worker thread (off-thread.ts).
 */
import type { PipelineParts } from './deps.ts';
import { createRecognizers } from './adapters/asr/registry.ts';
import { createSummarizers } from './adapters/summarize/registry.ts';
import { isTemplateId, TEMPLATE_IDS } from './adapters/summarize/templates.ts';
import { AudioDecoder } from './pipeline/decode.ts';
import { assignSpeakers } from './pipeline/diarize.ts';
import { biasTrieModelOffThread, offThreadDiarizer, offThreadEnhancer } from './pipeline/off-thread.ts';
import { detectSpeech } from './pipeline/vad.ts';
import type { ConfigService } from './features/config/service.ts';

export function realPipeline(opts: { dataDir: string; env: NodeJS.ProcessEnv; config: ConfigService }): PipelineParts {
  // pocketsphinx's adapted language models are built on the worker thread too (decision 087).
  const recognizers = createRecognizers({ dataDir: opts.dataDir, env: opts.env, buildBiasedModel: biasTrieModelOffThread });
  const summarizers = createSummarizers(opts.env);
  return {
    decoder: new AudioDecoder(),
    // The speech-enhancement front end, as the vad section sets it (decision 036),
    // and the diarizer run on the worker thread, so HTTP is served meanwhile (decision 035).
    enhance: offThreadEnhancer(() => opts.config.effective('vad')),
    detectSpeech,
    diarize: offThreadDiarizer(),
    assignSpeakers,
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
