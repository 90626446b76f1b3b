/**
 * What the rest of the gateway uses of summaries: the one way a finished
 * transcription is stored (store-transcription.ts), which also writes the
 * automatic summary or the summary of a meeting without speech; and the
 * service with its catalog of summarizers, which the composition root builds
 * and fills.
 */
export { storeTranscription, type StoreSteps, type StoreTranscriptionDeps } from './store-transcription.ts';
export { SummaryService, type SummarizerCatalog } from './service.ts';
