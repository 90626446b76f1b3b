/**
 * What other features use of summaries: the service that writes the
 * automatic summary after a transcription, and the summary of a meeting
 * without speech.
 */
export { NO_SPEECH_SUMMARY, type SummaryService } from './service.ts';
