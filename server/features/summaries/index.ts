/**
 * What other features use of summaries: the one way a finished transcription
 * is stored (store-transcription.ts), which also writes the automatic summary
 * or the summary of a meeting without speech.
 */
export { storeTranscription, type StoreSteps, type StoreTranscriptionDeps } from './store-transcription.ts';
