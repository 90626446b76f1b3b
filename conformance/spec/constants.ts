/** Names and values API.md lists, written down once. */

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

export const EXPORT_FORMATS = ['json', 'md', 'txt'] as const;

/** API.md, Errors: code → HTTP status. */
export const ERROR_CODES: Readonly<Record<string, number>> = {
  bad_request: 400,
  invalid_request: 422,
  unauthorized: 401,
  forbidden: 403,
  insufficient_scope: 403,
  not_prearmed: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  too_many_requests: 429,
  license_required: 402,
  consumer_disabled: 403,
  api_disabled: 403,
  service_unavailable: 503,
  internal: 500,
};

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
export const JOB_KINDS = ['import', 'retranscription', 'diarization'] as const;
export const RECORDING_STATES = ['idle', 'starting', 'recording', 'paused', 'stopping'] as const;
export const IMPORT_EXTENSIONS = ['mp4', 'm4a', 'wav', 'mp3', 'flac', 'ogg', 'aac', 'mkv', 'webm', 'wma'] as const;
export const APPROVAL_STATES = ['pending', 'allowed', 'denied'] as const;
export const DELIVERY_MODES = ['at-least-once', 'at-most-once'] as const;
export const DELIVERY_REASONS = ['delivery_failed', 'handler_error', 'third_party_rejected', 'denied', 'exhausted'] as const;

/** Events API.md names (10 of the 17 subscribable ones, plus webhook.test). */
export const EVENTS = {
  read: ['job.completed', 'job.failed', 'job.cancelled', 'job.paused', 'job.resumed', 'summary.completed', 'transcript.updated'],
  record: ['recording.started', 'recording.stopped'],
  test: 'webhook.test',
  notSubscribable: ['meeting.created', 'meeting.updated', 'meeting.deleted', 'transcription.completed'],
} as const;

/** Limits (API.md, Limits). */
export const LIMITS = {
  pageMax: 200,
  pageDefault: 50,
  titleMax: 500,
  importFileBytes: 2_000_000_000,
  jobWaitDefaultSeconds: 300,
  waitCapSeconds: 3600,
  webhookAttempts: 6,
  webhookBackoffSeconds: [1, 2, 4, 8, 16],
  deliveryLog: 100,
} as const;
