/**
 * Which summarizer a summary uses, from RegenerateSummaryRequest's `model`
 * and `model_name` (API.md, Summary) or the application's defaults.
 * Decision 011:
 *
 * - no model, or "extractive" → the in-process extractive summarizer;
 * - "openai-compatible" → the chat summarizer, its chat model from
 *   model_name, else MAS_SUMMARY_MODEL;
 * - any other name (in model, or in model_name without model), when
 *   MAS_SUMMARY_URL is configured → the chat summarizer with that name as its
 *   chat model (model: "gpt-4o-mini" works);
 * - anything else → UnknownSummaryModelError (422).
 */
import type { Summarizer } from '../../pipeline/types.ts';
import { normalizeBaseUrl } from '../asr/openai-compatible.ts';
import { ExtractiveSummarizer } from './extractive.ts';
import { OpenAiChatSummarizer } from './openai-chat.ts';

/** The chat model when neither the request nor MAS_SUMMARY_MODEL names one. */
const DEFAULT_CHAT_MODEL = 'gpt-4o-mini';

export class UnknownSummaryModelError extends Error {
  constructor(model: string, configured: boolean) {
    super(
      configured
        ? `unknown summary model "${model}"`
        : `unknown summary model "${model}": use "extractive", or configure an OpenAI-compatible endpoint (MAS_SUMMARY_URL) to use other models`,
    );
    this.name = 'UnknownSummaryModelError';
  }
}

export interface Summarizers {
  default: Summarizer;
  /** The summarizer for a request's model (and model_name); throws UnknownSummaryModelError. */
  byModel(model: string | undefined, modelName?: string): Summarizer;
}

export function createSummarizers(env: NodeJS.ProcessEnv): Summarizers {
  const extractive = new ExtractiveSummarizer();
  const configured = normalizeBaseUrl(env.MAS_SUMMARY_URL) !== null;
  // MAS_SUMMARY_TIMEOUT_MS: how long one request may take (default 5 min); the fault tests set it short (decision 024).
  const timeout = timeoutMs(env.MAS_SUMMARY_TIMEOUT_MS);
  const chat = (model: string) =>
    new OpenAiChatSummarizer({
      baseUrl: env.MAS_SUMMARY_URL,
      apiKey: nonEmpty(env.MAS_SUMMARY_API_KEY),
      model,
      ...(timeout === undefined ? {} : { requestTimeoutMs: timeout }),
    });
  return {
    default: extractive,
    byModel(modelParam, modelNameParam) {
      const model = nonEmpty(modelParam);
      const modelName = nonEmpty(modelNameParam);
      if (model === undefined && modelName === undefined) return extractive;
      if (model === 'extractive') return extractive;
      // Unconfigured, "openai-compatible" is still selectable: summarize() then fails as a missing dependency.
      if (model === 'openai-compatible') return chat(modelName ?? nonEmpty(env.MAS_SUMMARY_MODEL) ?? DEFAULT_CHAT_MODEL);
      const name = model ?? modelName!; // one of them is set (first line)
      if (configured) return chat(name);
      throw new UnknownSummaryModelError(name, configured);
    },
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** A positive whole number of milliseconds, or undefined (unset or not a number: the default applies). */
function timeoutMs(value: string | undefined): number | undefined {
  const n = Number(nonEmpty(value));
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}
