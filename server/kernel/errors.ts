/**
 * The one error registry of the gateway.
 *
 * Every non-2xx response leaves through `sendError` (called by the envelope
 * middleware and by the raw-socket client-error handler), so every error body
 * has the shape {"error": {"code", "message"}} that API.md's Errors section
 * defines. Sub-codes (409 conflicts, 429 budget) sit in the code field
 * themselves, each bound to the status of its parent code.
 *
 * The registry is closed: a code that is not listed here cannot be thrown
 * (the type system refuses it), and errors.test.ts keeps this table and the
 * spec's Errors table in step.
 */
import type { ServerResponse } from 'node:http';

export const ERROR_CODES = {
  bad_request: { status: 400, meaning: 'malformed request or invalid reference' },
  invalid_request: { status: 422, meaning: 'body or parameters failed validation' },
  unauthorized: { status: 401, meaning: 'no token or unrecognized token' },
  forbidden: { status: 403, meaning: 'valid token, not allowed' },
  insufficient_scope: { status: 403, meaning: 'scopes do not cover the call' },
  not_prearmed: { status: 403, meaning: 'remote caller started recording without pre-arming' },
  not_found: { status: 404, meaning: 'resource missing' },
  conflict: { status: 409, meaning: 'conflicts with current state' },
  payload_too_large: { status: 413, meaning: 'body above the size cap' },
  too_many_requests: { status: 429, meaning: 'rate or budget limited' },
  license_required: { status: 402, meaning: 'Pro license missing' },
  consumer_disabled: { status: 403, meaning: 'calling key switched off' },
  api_disabled: { status: 403, meaning: 'Automation API is off' },
  service_unavailable: { status: 503, meaning: 'a needed dependency is unavailable' },
  internal: { status: 500, meaning: 'failure on the service side' },
} as const;

/** Sub-codes carried in the code field, with the parent code whose status they take. */
export const SUB_CODES = {
  import_not_pausable: 'conflict',
  not_retryable: 'conflict',
  not_terminal: 'conflict',
  summary_generating: 'conflict',
  recording_active: 'conflict',
  recording_in_progress: 'conflict',
  engine_busy: 'conflict',
  source_gone: 'conflict',
  import_budget_full: 'too_many_requests',
} as const satisfies Record<string, keyof typeof ERROR_CODES>;

type ErrorCode = keyof typeof ERROR_CODES;
type SubCode = keyof typeof SUB_CODES;
export type AnyErrorCode = ErrorCode | SubCode;

export function statusOf(code: AnyErrorCode): number {
  if (code in ERROR_CODES) return ERROR_CODES[code as ErrorCode].status;
  return ERROR_CODES[SUB_CODES[code as SubCode]].status;
}

/** The one HTTP error type. Throw it anywhere below a route; the envelope middleware writes it. */
export class ApiError extends Error {
  readonly code: AnyErrorCode;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: AnyErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = statusOf(code);
    this.headers = headers;
  }
}

export interface ErrorEnvelope {
  error: { code: AnyErrorCode; message: string };
}

export function envelope(code: AnyErrorCode, message: string): ErrorEnvelope {
  return { error: { code, message } };
}

/**
 * Writes an error response on a bare node:http response, so the Express
 * pipeline and the raw client-error path share one writer. Never throws.
 */
export function sendError(res: ServerResponse, err: ApiError): void {
  if (res.headersSent) {
    // A stream (SSE, export) already started: the only honest thing left is to end it.
    res.destroy();
    return;
  }
  const body = JSON.stringify(envelope(err.code, err.message));
  res.statusCode = err.status;
  for (const [name, value] of Object.entries(err.headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.setHeader('Cache-Control', 'no-store');
  res.end(body);
}

/**
 * Maps anything thrown into an ApiError. Unknown failures become 500 internal
 * with a fixed message: a stack trace or a path never reaches the client.
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof URIError) return new ApiError('bad_request', 'the request path is not valid percent-encoding');
  // Express and node:http report client mistakes as errors with a 4xx status
  // (a path parameter that is not valid percent-encoding, an aborted body).
  const status =
    typeof err === 'object' && err !== null
      ? ((err as { status?: unknown }).status ?? (err as { statusCode?: unknown }).statusCode)
      : undefined;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    if (status === 413) return new ApiError('payload_too_large', 'the request body is too large');
    return new ApiError('bad_request', 'the request could not be read');
  }
  // A full disk is a dependency that is unavailable, not a bug: 503, and writes work again once
  // space is freed (docs/decisions/024-faults.md). ENOSPC/EDQUOT from node:fs, SQLITE_FULL (13) from node:sqlite.
  if (isDiskFull(err)) return new ApiError('service_unavailable', DISK_FULL_MESSAGE);
  return new ApiError('internal', 'the service failed to handle the request');
}

export const DISK_FULL_MESSAGE = 'no space is left on the disk that holds the data folder; free some space and try again';

/** Whether an error says the disk (or the user's quota) is full. */
export function isDiskFull(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, errcode } = err as { code?: unknown; errcode?: unknown };
  return code === 'ENOSPC' || code === 'EDQUOT' || (code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number' && (errcode & 0xff) === 13);
}
