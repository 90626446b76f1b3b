/** The pipeline benchmark's sizes: the full run and the --tiny one (bench/pipeline.ts). */

export interface PipelineConfig {
  upload_bytes: number;
  /** Measured uploads per server, interleaved (the order alternates per round). */
  upload_rounds: number;
  /** One unmeasured upload of this size to each server first. */
  upload_warmup_bytes: number;
  decode_seconds: number;
  decode_runs: number;
  /**
   * Meetings the recognizer transcribes, with the number of rounds of each:
   * a round is one transcription without and one with the bias, the order
   * alternating; WER is from the first round.
   */
  recognition: Record<string, number>;
  /** Meetings with distinct voices: the 95 % target applies to each. */
  diarization_scripts: string[];
  /** Meetings reported without a target. */
  diarization_reported_scripts: string[];
}

export const FULL: PipelineConfig = {
  upload_bytes: 2 ** 30,
  upload_rounds: 3,
  upload_warmup_bytes: 32 * 2 ** 20,
  decode_seconds: 60,
  decode_runs: 3,
  recognition: { 'two-person-call': 2, 'four-person-standup': 1, 'long-silences': 1 },
  diarization_scripts: ['two-person-call', 'four-person-standup', 'long-silences'],
  diarization_reported_scripts: ['near-identical-voices'],
};

export const TINY: PipelineConfig = {
  upload_bytes: 64 * 2 ** 20,
  upload_rounds: 1,
  upload_warmup_bytes: 4 * 2 ** 20,
  decode_seconds: 4,
  decode_runs: 1,
  recognition: { tiny: 1 },
  diarization_scripts: ['tiny'],
  diarization_reported_scripts: [],
};
