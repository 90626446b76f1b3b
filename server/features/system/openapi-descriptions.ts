/**
 * The prose of /openapi.json that generators and documentation tools show:
 * the resource tags, one description per operation, the wait streams' events
 * and the webhook deliveries. Drawn from API.md (what an operation does, the
 * scope it needs, the states and sub-codes it answers with, the spec's own
 * notes); kept apart from the operations table so that the rows stay short
 * and the text is reviewed in one place (docs/decisions/046-openapi-for-tools.md).
 *
 * `Record<OperationId, string>` makes a missing description a type error.
 */
import type { OperationId } from '../../operations.ts';

/** The global tags, one per resource, in the order documentation shows them. */
export const TAGS = [
  { name: 'system', description: 'Health, caller identity, this OpenAPI document, audio devices and recognizer models.' },
  { name: 'search', description: 'Full-text search over meeting titles and transcripts.' },
  {
    name: 'meetings',
    description:
      'Meetings with their transcript, summary, speaker labels and exports. Meetings are never ' +
      'created by a call: they come from recording or from an import job.',
  },
  {
    name: 'jobs',
    description:
      'Background jobs: audio import, diarization, and retranscription (reached only by retrying ' +
      'a job). States: queued, running, succeeded, failed, cancelled, and the transient pausing, ' +
      'paused, resuming, cancelling.',
  },
  { name: 'config', description: 'Application configuration, one section at a time (there is no whole-configuration route).' },
  {
    name: 'recording',
    description: 'Live capture of real microphone and/or system audio. States: idle, starting, recording, paused, stopping.',
  },
  {
    name: 'webhooks',
    description:
      'Signed HTTP deliveries of events to a registered URL. The routes work only while webhook ' +
      'delivery is enabled in the application; a new webhook is pending until its destination is ' +
      'approved there.',
  },
  {
    name: 'pairing',
    description: 'Bootstrap a token from another device: a request without a token that a person approves in the application.',
  },
  {
    name: 'deliveries',
    description:
      'What this service sends to a webhook receiver (the top-level webhooks section): one POST ' +
      "per event, signed with the webhook's hmac_secret.",
  },
] as const;

const SCOPE_NOTE = {
  none: 'No token needed.',
  read: 'Scope: read (record and write also satisfy it).',
  write: 'Scope: write.',
  record: 'Scope: record.',
  delete: 'Scope: delete (granted separately; it implies neither read nor write).',
} as const;

/** The scope sentence that opens the notes of an operation's description. */
export function scopeNote(scope: keyof typeof SCOPE_NOTE): string {
  return SCOPE_NOTE[scope];
}

export const OPERATION_DESCRIPTIONS: Record<OperationId, string> = {
  getHealth:
    'Liveness, the service version and its counters: webhooks.events_dropped (events lost ' +
    'before any delivery attempt, for example a full queue), ' +
    'webhooks.deliveries_failed (deliveries that used every retry) and license.fail_open_total ' +
    '(requests let through because license verification could not complete; diagnostic only). ' +
    'Answers 200 always, even while the Automation API is off or the license is missing, so it has no 4xx response.',
  getWhoami: "The caller's token id, scopes, the installation's license tier and server_version.",
  getOpenApi:
    'This document: the OpenAPI 3.1 manifest of the running service and the canonical route ' +
    'description; where prose and the manifest differ, the manifest wins. ' +
    'Every operation carries x-service-read-only, x-service-idempotent, x-service-destructive and x-service-required-scope.',
  searchMeetings:
    'Full-text search over meeting titles and transcripts: title hits first, then transcript hits, newest meetings first. ' +
    'Each result has meeting_id, title, match_context, timestamp and, for a transcript hit, ' +
    'audio_start_time. Results are capped and there is no total. ' +
    'A missing or empty q is 400 bad_request; limit is clamped to 1..200 (default 50).',
  listDevices: 'Audio input and output devices the recorder can capture from, real and simulated, each with name and device_type.',
  listModels: 'Speech recognition models present on this machine. Read-only: there is no download or delete route.',
  listMeetings: 'A page of meetings, newest first, with total, limit and offset. limit is clamped to 1..200 (default 50).',
  getMeeting: 'One meeting by id.',
  renameMeeting: 'Sets the title of a meeting (at most 500 characters) and answers the meeting as it is after the rename.',
  deleteMeeting:
    'Deletes a meeting, cascading to its transcript and summary. Irreversible. delete_files=true also removes the recording file. ' +
    'Needs the delete scope, which is never given to a paired device.',
  getTranscript: "A meeting's transcript: segments with speaker, timestamps and optional word timings.",
  getSummary: "A meeting's summary: status, result, updated_at, and regeneration_failed with error after a failed regeneration.",
  overwriteSummary: 'Overwrites the stored summary with the given text. There is no undo.',
  setSpeakerLabels:
    'Sets display names for speaker cluster keys; a null value removes a label. Answers every label of the meeting after the update.',
  exportMeeting:
    'Exports a meeting. format=json (the default) gives ExportDto {meeting, transcript, ' +
    'summary}; md and txt (aliases markdown and text) give the rendered document itself as ' +
    'text/markdown or text/plain.',
  regenerateSummary:
    'Starts a regeneration of the summary and answers 202 at once with operation_id, wait_url and status_url. ' +
    'Omitted fields fall back to the stored configuration; the default template is daily_standup. ' +
    'An empty transcript is 422 invalid_request; a regeneration already running for the meeting is 409 summary_generating. ' +
    'Follow wait_url (text/event-stream) for the end, or poll status_url.',
  getSummaryOperation:
    'The status of a summary regeneration started through the API: its state, model, template ' +
    'and, once it ends, finished_at and any error.',
  waitSummaryOperation:
    'A Server-Sent-Events stream that emits exactly one event and closes: summary.completed or ' +
    'summary.failed with the operation status as data, ' +
    'or, after timeout_ms, an event named timeout (a timeout is never an HTTP error). Capped at ' +
    'one hour. Comment lines keep the stream alive while it waits.',
  listJobs: 'Every job, newest first.',
  getJob:
    'One job: kind (import, retranscription, diarization), state, stage, progress (0 to 1) and, once assigned, meeting_id. ' +
    'A failed job carries error with paths redacted and is_retryable.',
  submitDiarization:
    'Attributes the words of a meeting to speakers again (speaker_count omitted for automatic) and answers 202 with the job id. ' +
    'A run already going for the same meeting is 409 engine_busy.',
  importAudio:
    'Imports an audio or video file: the body is the raw file bytes (application/octet-stream); there is no source-path parameter. ' +
    'Only the extension of filename is read: mp4, m4a, wav, mp3, flac, ogg, aac, mkv, webm or ' +
    'wma. Answers 202 with job_id; follow the job (GET /v1/jobs/{id}/wait) ' +
    'until it succeeds: its meeting_id is set once a meeting is assigned, and a summary is ' +
    'generated automatically. To change the file, cancel and upload again. ' +
    'Limits: 2 GB per file (413 payload_too_large); a shared budget of 20 GB in flight, 3 ' +
    'concurrent imports and 4 GB of estimated decoded memory (429 import_budget_full, with ' +
    'Retry-After).',
  cancelJob: 'Cancels a job; the job ends cancelled and job.cancelled is emitted. Idempotent on a job that has already ended.',
  pauseJob:
    'Pauses a running job (pausing, then paused); job.paused is emitted and may arrive twice with the same job id. ' +
    'An import job cannot be paused: 409 import_not_pausable, state unchanged.',
  resumeJob:
    'Resumes a paused job (resuming, then running); job.resumed is emitted. Import jobs are ' +
    'never paused, so they give 409 import_not_pausable.',
  retryJob:
    'Runs a failed job again when is_retryable is true; it goes back to queued. This is the only way to retranscribe. ' +
    'A job that is not failed is 409 not_terminal, one that cannot be retried 409 ' +
    'not_retryable, and an import whose uploaded bytes are gone 409 source_gone.',
  waitJob:
    'A Server-Sent-Events stream that emits exactly one event and closes: job.completed, ' +
    'job.failed or job.cancelled with the job as data, on the terminal state actually reached. ' +
    'job.paused and job.resumed never resolve it. After timeout seconds (default 300, capped at ' +
    '3600) it emits an event named timeout instead (a timeout is never an HTTP error).',
  getConfigSection:
    'One configuration section: vad, diarization, speaker-identification, meeting-detection, ' +
    'global-shortcut, audio-player, custom-words or initial-prompt. ' +
    'withheld lists the fields a caller is not shown. There is no route for the whole configuration.',
  replaceConfigSection:
    'Replaces the whole section with the body: omitted fields are dropped, not kept. Applied immediately; there is no dry run. ' +
    'Arming auto-record through meeting-detection additionally needs the record scope and, for ' +
    'a remote caller, pre-arming (403 not_prearmed). ' +
    'A section name outside the eight is 404 not_found.',
  createWebhook:
    'Registers a webhook: url (http:// or https://), events (a non-empty list of subscribable ' +
    'event names) and delivery_mode (at-least-once, the default, or at-most-once). ' +
    'The answer (201) shows hmac_secret, the signing key, this once and never again. The ' +
    'webhook starts pending and delivers nothing until its destination is approved in the ' +
    'application. ' +
    'Scope: read, plus record for any recording.* event. 400 for meeting.* or ' +
    'transcription.completed (not subscribable), for a loopback or private host outside the ' +
    'local-targets allowlist, ' +
    'and for link-local, metadata, unspecified or multicast addresses. 403 forbidden while ' +
    'webhook delivery is off in the application.',
  listWebhooks: "The caller's own webhooks. all=true lists every owner's webhooks and needs the delete scope and a first-party token.",
  getWebhook: 'One webhook with its approval_state (pending, allowed, denied). Owner only: another token gets 403 forbidden.',
  deleteWebhook:
    'Deletes an owned webhook with its delivery log. The delete scope is not needed. An unknown ' +
    'id is 404; a webhook of another token is 403 forbidden.',
  listWebhookDeliveries:
    'The delivery log of an owned webhook: the most recent 100 entries, newest first. Reason ' +
    'codes: delivery_failed (network or transport), handler_error (the destination answered ' +
    '5xx), ' +
    'third_party_rejected (any other non-2xx), denied (approval_state is denied; no attempt ' +
    'made), exhausted (every retry used). A pending webhook logs nothing.',
  testWebhook:
    'Sends one synthetic webhook.test delivery with a single attempt, whatever the webhook ' +
    'subscribes to, if its destination is approved. Answers 202; the outcome is in the delivery ' +
    'log. Owner only.',
  requestPairing:
    'Asks for a token from another device, without a token. A person approves or rejects the ' +
    'request in the application; poll GET /v1/pair/{id}. ' +
    'The delete scope is never given to a paired device. Requests are rate limited: 429 too_many_requests with Retry-After.',
  getPairing:
    'Polls a pairing request, without a token, until it is approved or rejected. The first poll ' +
    'after approval carries the raw token; later polls never do.',
  getRecording:
    'The recorder: state (idle, starting, recording, paused, stopping), active_meeting_id, ' +
    'last_error with paths redacted, and the devices in use.',
  startRecording:
    'Starts recording real microphone and/or system audio now. Answers at once (202) with state ' +
    'starting; recording.started follows once the capture pipeline is up ' +
    '(GET /v1/recording/wait?until=started). consent_attested omitted or true starts; an ' +
    'explicit false is 400. Not idle: 409 recording_in_progress. ' +
    'A remote (non-loopback) caller needs the remote_recording_prearmed setting: 403 not_prearmed otherwise.',
  stopRecording:
    'Stops and finalizes the recording: stopping, then idle with recording.stopped. No active recording: 409 recording_active.',
  pauseRecording: 'Pauses capture and keeps the recording (recording → paused). Neither recording nor paused: 409 recording_active.',
  resumeRecording: 'Resumes a paused recording (paused → recording). Neither paused nor recording: 409 recording_active.',
  waitRecording:
    'A Server-Sent-Events stream that emits exactly one event and closes when the requested ' +
    'transition happens: until=started gives recording.started, until=stopped gives ' +
    'recording.stopped, ' +
    'each with the recording state as data (a start that fails before recording gives ' +
    'recording.stopped). After timeout seconds (default 300, capped at 3600) it emits an event ' +
    'named timeout instead.',
};

/** The event names and data of each wait stream, for the text/event-stream response. */
export const WAIT_EVENTS: Partial<Record<OperationId, { events: Record<string, string>; timeoutData: string }>> = {
  waitJob: {
    events: { 'job.completed': 'JobDto', 'job.failed': 'JobDto', 'job.cancelled': 'JobDto' },
    timeoutData: '{"job_id", "timeout_seconds"}',
  },
  waitRecording: {
    events: { 'recording.started': 'RecordingStateDto', 'recording.stopped': 'RecordingStateDto' },
    timeoutData: '{"until", "timeout_seconds", "state"}',
  },
  waitSummaryOperation: {
    events: { 'summary.completed': 'OperationStatus', 'summary.failed': 'OperationStatus' },
    timeoutData: '{"operation_id", "timeout_ms"}',
  },
};

/** When each delivered event is sent, for the webhooks section. */
export const EVENT_DESCRIPTIONS: Record<string, string> = {
  'job.completed': 'A job reached succeeded. resource: {kind: job, id: job id}.',
  'job.failed': 'A job failed. resource: {kind: job, id: job id}.',
  'job.cancelled': 'A job was cancelled. resource: {kind: job, id: job id}.',
  'job.paused': 'A job is pausing or paused; may arrive twice with the same job id. resource: {kind: job, id: job id}.',
  'job.resumed': 'A paused job was resumed. resource: {kind: job, id: job id}.',
  'recording.started':
    'Recording has started (the capture pipeline is up). resource: {kind: recording, id: the ' +
    'recording session id (session_id of GET /v1/recording)}. Subscribing needs the record ' +
    'scope.',
  'recording.stopped':
    'Recording has stopped. resource: {kind: recording, id: the recording session id ' +
    '(session_id of GET /v1/recording)}. Subscribing needs the record scope.',
  'summary.completed':
    'A summary is ready, whether the application generated it or an API regeneration did; ' +
    'operation_id is present for the latter. resource: {kind: meeting, id: meeting id}.',
  'transcript.updated': 'A transcript changed; a liveness signal only, never its content. resource: {kind: meeting, id: meeting id}.',
  'job.started': 'A job started running. Dormant in this build: subscribable, never delivered.',
  'job.retried': 'A failed job was queued again by a retry. Dormant in this build: subscribable, never delivered.',
  'recording.paused': 'Capture was paused. Dormant in this build: subscribable, never delivered. Subscribing needs the record scope.',
  'recording.resumed': 'Capture was resumed. Dormant in this build: subscribable, never delivered. Subscribing needs the record scope.',
  'recording.failed': 'A recording failed. Dormant in this build: subscribable, never delivered. Subscribing needs the record scope.',
  'summary.failed': 'A summary regeneration failed. Dormant in this build: subscribable, never delivered.',
  'speaker_labels.updated': "A meeting's speaker labels changed. Dormant in this build: subscribable, never delivered.",
  'config.updated': 'A configuration section was replaced. Dormant in this build: subscribable, never delivered.',
  'webhook.test':
    'Sent by POST /v1/webhooks/{id}/test to that one webhook, with a single attempt, whatever ' +
    'it subscribes to. Not subscribable. resource: {kind: webhook, id: webhook id}.',
};

export const SIGNATURE_RECIPE =
  'Each delivery is a POST of the event envelope (application/json) with two headers: X-Service-Timestamp (unix seconds) and ' +
  'X-Service-Signature: sha256=<lowercase hex of HMAC-SHA256, keyed with the hmac_secret ' +
  'shown when the webhook was created (its UTF-8 bytes, prefix included), ' +
  'over the timestamp header value, a literal dot, then the raw body bytes exactly as ' +
  'received>. Verify before parsing the JSON, compare in constant time, ' +
  'and refuse a timestamp far from your clock (300 s is the usual tolerance). ' +
  'at-least-once (the default): up to 6 attempts, 1, 2, 4, 8 and 16 s apart, while the ' +
  'application runs; at-most-once: one attempt. ' +
  'Duplicates and losses are possible and nothing is replayed after a restart: treat a repeated event_id as a no-op. ' +
  'A 2xx answer means accepted; 5xx is logged as handler_error, any other status (redirects ' +
  'are not followed) as third_party_rejected.';
