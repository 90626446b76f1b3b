/** Names and values API.md lists, written down once. */

/** API.md, Scopes: the four a token may hold. */
export const SCOPES = ['read', 'record', 'write', 'delete'] as const;
export type Scope = (typeof SCOPES)[number];

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

export const CONFLICT_SUBCODES = [
  'import_not_pausable',
  'not_retryable',
  'not_terminal',
  'summary_generating',
  'recording_active',
  'recording_in_progress',
  'engine_busy',
  'source_gone',
] as const;

export const RATE_SUBCODES = ['import_budget_full'] as const;

export const JOB_STATES = ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'pausing', 'paused', 'resuming', 'cancelling'] as const;
export const JOB_TERMINAL_STATES = ['succeeded', 'failed', 'cancelled'] as const;
export type JobKind = 'import' | 'retranscription' | 'diarization';
export const RECORDING_STATES = ['idle', 'starting', 'recording', 'paused', 'stopping'] as const;
export const IMPORT_EXTENSIONS = ['mp4', 'm4a', 'wav', 'mp3', 'flac', 'ogg', 'aac', 'mkv', 'webm', 'wma'] as const;
export const APPROVAL_STATES = ['pending', 'allowed', 'denied'] as const;
export const DELIVERY_REASONS = ['delivery_failed', 'handler_error', 'third_party_rejected', 'denied', 'exhausted'] as const;
