/**
 * The processing stages that follow every transcription (imports,
 * retranscriptions, diarizations, recordings), in the order they run.
 * Adding one is a file that exports a TranscriptStage (transcribe.ts) and
 * its line here; the real pipeline (server/real-pipeline.ts) runs this list
 * (decision 119).
 */
import type { TranscriptStage } from './transcribe.ts';
import { identifySpeakers } from './identify-speakers.ts';

export const AFTER_TRANSCRIPTION: readonly TranscriptStage[] = [identifySpeakers];
