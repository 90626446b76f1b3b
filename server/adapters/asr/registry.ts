/**
 * Which recognizer an import uses, from its `provider` and `model` query
 * parameters (API.md, Import) and the environment. Rules (decision 011):
 *
 * - provider pocketsphinx | whisper.cpp | openai-compatible picks that one
 *   ("whisper-cpp" and "openai" are accepted spellings);
 * - no provider: a pocketsphinx-* model → pocketsphinx, the name of a
 *   <data>/models/<name>.bin file → whisper.cpp, no model → pocketsphinx
 *   (the default: it is installed with the system);
 * - a model the chosen local provider does not have, an unknown provider →
 *   RecognizerChoiceError, which the import route answers with 422 before it
 *   stores a byte. The openai-compatible model is the endpoint's business.
 *
 * Environment: MAS_WHISPER_CPP_BIN (and optional MAS_WHISPER_CPP_MODEL, the
 * default model file), MAS_TRANSCRIBE_URL, MAS_TRANSCRIBE_API_KEY,
 * MAS_TRANSCRIBE_MODEL; MAS_RECOGNIZER_PROCESSES, how many pocketsphinx
 * processes decode one recording side by side (default one per core,
 * decision 094). A provider that is selected but not configured or
 * not installed is still returned: its transcribe() fails with a StageError
 * marked dependencyMissing, and available() tells callers that want a 503.
 */
import { join } from 'node:path';
import type { Recognizer } from '../../pipeline/types.ts';
import { OpenAiCompatibleRecognizer } from './openai-compatible.ts';
import type { BiasedModelBuilder } from './pocketsphinx-lm-cache.ts';
import { DEFAULT_POCKETSPHINX_MODEL_ROOT, listPocketSphinxModels, PocketSphinxRecognizer } from './pocketsphinx.ts';
import { WhisperCppRecognizer } from './whisper-cpp.ts';

const PROVIDERS = ['pocketsphinx', 'whisper.cpp', 'openai-compatible'] as const;
export type Provider = (typeof PROVIDERS)[number];

const ALIASES: Record<string, Provider> = {
  pocketsphinx: 'pocketsphinx',
  'whisper.cpp': 'whisper.cpp',
  'whisper-cpp': 'whisper.cpp',
  'openai-compatible': 'openai-compatible',
  openai: 'openai-compatible',
};

/** A provider or model the request cannot have: a validation error (422), not a pipeline failure. */
export class RecognizerChoiceError extends Error {
  readonly field: 'provider' | 'model';

  constructor(field: 'provider' | 'model', message: string) {
    super(message);
    this.name = new.target.name;
    this.field = field;
  }
}

export class UnknownProviderError extends RecognizerChoiceError {
  constructor(provider: string) {
    super('provider', `unknown provider "${provider}": use one of ${PROVIDERS.join(', ')}`);
  }
}

export class UnknownModelError extends RecognizerChoiceError {
  constructor(model: string, provider: Provider | undefined, known: readonly string[]) {
    const list = known.length > 0 ? `; installed: ${known.join(', ')}` : '';
    super('model', `unknown model "${model}"${provider === undefined ? '' : ` for ${provider}`}${list}`);
  }
}

export interface Recognizers {
  default: Recognizer;
  /** The recognizer for an import's provider and model; throws RecognizerChoiceError for ones it cannot have. */
  byProvider(provider: string | undefined, model: string | undefined): Recognizer;
  /** Every recognizer, by provider name. */
  all: Readonly<Record<Provider, Recognizer>>;
}

export function createRecognizers(opts: {
  dataDir: string;
  env: NodeJS.ProcessEnv;
  pocketsphinxRoot?: string;
  /** Builds pocketsphinx's adapted language models; the gateway passes its worker thread's (decision 087). */
  buildBiasedModel?: BiasedModelBuilder;
}): Recognizers {
  const env = opts.env;
  const pocketsphinxRoot = opts.pocketsphinxRoot ?? DEFAULT_POCKETSPHINX_MODEL_ROOT;
  const processes = nonEmpty(env.MAS_RECOGNIZER_PROCESSES);
  const pocketsphinx = new PocketSphinxRecognizer({
    modelRoot: pocketsphinxRoot,
    path: env.PATH,
    buildBiasedModel: opts.buildBiasedModel,
    // Checked at start (server/startup/environment.ts): a whole number from 1.
    ...(processes !== undefined ? { processes: Number(processes) } : {}),
  });
  const whisper = new WhisperCppRecognizer({
    binary: nonEmpty(env.MAS_WHISPER_CPP_BIN),
    modelsDir: join(opts.dataDir, 'models'),
    defaultModel: nonEmpty(env.MAS_WHISPER_CPP_MODEL),
    path: env.PATH,
  });
  const openai = new OpenAiCompatibleRecognizer({
    baseUrl: nonEmpty(env.MAS_TRANSCRIBE_URL),
    apiKey: nonEmpty(env.MAS_TRANSCRIBE_API_KEY),
    model: nonEmpty(env.MAS_TRANSCRIBE_MODEL),
  });
  const all: Record<Provider, Recognizer> = { pocketsphinx: pocketsphinx, 'whisper.cpp': whisper, 'openai-compatible': openai };
  const pocketsphinxModels = () => listPocketSphinxModels(pocketsphinxRoot).map((m) => m.name);

  return {
    default: pocketsphinx,
    all,
    byProvider(providerParam, modelParam) {
      const model = nonEmpty(modelParam);
      const given = nonEmpty(providerParam);
      const provider = given === undefined ? undefined : ALIASES[given.toLowerCase()];
      if (given !== undefined && provider === undefined) throw new UnknownProviderError(given);

      if (provider === 'openai-compatible') return openai;
      if (provider === 'whisper.cpp') {
        if (model !== undefined && !whisper.hasModel(model)) throw new UnknownModelError(model, provider, whisper.models());
        return whisper;
      }
      if (provider === 'pocketsphinx') {
        if (model !== undefined && !pocketsphinxModels().includes(model))
          throw new UnknownModelError(model, provider, pocketsphinxModels());
        return pocketsphinx;
      }
      // No provider: the model says which.
      if (model === undefined) return pocketsphinx;
      if (pocketsphinxModels().includes(model)) return pocketsphinx;
      if (whisper.hasModel(model)) return whisper;
      throw new UnknownModelError(model, undefined, [...pocketsphinxModels(), ...whisper.models()]);
    },
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
