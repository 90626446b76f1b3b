/**
 * Generated from docs/openapi.json and server/kernel/errors.ts (npm run openapi:generate). Do not edit:
 * client/openapi.test.ts fails when this file and its sources drift apart.
 */

/** The configuration sections of GET and PUT /v1/config/{section}, in the order API.md lists them. */
export const CONFIG_SECTIONS = [
  'vad',
  'diarization',
  'speaker-identification',
  'meeting-detection',
  'global-shortcut',
  'audio-player',
  'custom-words',
  'initial-prompt',
] as const;

export type ConfigSection = (typeof CONFIG_SECTIONS)[number];

/** The sub-codes of API.md's Errors section, each with the code it refines (and whose status it takes). */
export const SUB_CODE_PARENTS: Readonly<Record<string, string>> = {
  import_not_pausable: 'conflict',
  not_retryable: 'conflict',
  not_terminal: 'conflict',
  summary_generating: 'conflict',
  recording_active: 'conflict',
  recording_in_progress: 'conflict',
  engine_busy: 'conflict',
  source_gone: 'conflict',
  import_budget_full: 'too_many_requests',
};
