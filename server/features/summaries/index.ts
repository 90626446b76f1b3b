/**
 * What other features use of summaries: the service that writes the
 * automatic summary after a transcription, the summary of a meeting without
 * speech, and the one way a finished transcription is stored
 * (store-transcription.ts).
 */
export { NO_SPEECH_SUMMARY, type SummaryService } from './service.ts';
export { storeTranscription, type StoreSteps, type StoreTranscriptionDeps } from './store-transcription.ts';
