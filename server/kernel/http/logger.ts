/**
 * The gateway's log: pino, one JSON object per line on standard error, with a
 * level (MAS_LOG_LEVEL, info by default) and redaction
 * (docs/decisions/064-structured-logs.md).
 *
 * What the gateway logs: unexpected failures (a 500, a job or delivery that
 * failed for a reason that is a bug), listener problems, the simulated
 * devices' notices, and, when MAS_ACCESS_LOG is on, one line per API request
 * (http/request-log.ts). The start banner, option errors and the stop notice
 * of server/main.ts stay plain text: they are the command's conversation with
 * the person who started it, not log records.
 *
 * Secrets stay out (docs/decisions/022-host-origin-and-secrets.md,
 * server/security/secrets-in-logs.test.ts): no log call passes a header, a
 * body, a query string or a raw path (requests are named by method and route
 * template); errors are reduced to their type, message and stack, never their
 * other properties; and the redaction below censors the fields that would
 * hold a secret if a later log call passed one anyway.
 */
import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** What the environment asks of the log (server/startup/environment.ts validates both names at start). */
export interface LogSettings {
  level: LogLevel;
  /** One line per request of the Automation API (off by default: it costs a write per request). */
  accessLog: boolean;
}

/** MAS_LOG_LEVEL and MAS_ACCESS_LOG, already checked by checkEnvironment; empty or missing means the default. */
export function logSettingsFrom(env: Readonly<Record<string, string | undefined>>): LogSettings {
  const level = (env['MAS_LOG_LEVEL'] ?? '').trim().toLowerCase();
  const access = (env['MAS_ACCESS_LOG'] ?? '').trim().toLowerCase();
  return {
    level: (LOG_LEVELS as readonly string[]).includes(level) ? (level as LogLevel) : 'info',
    accessLog: ['1', 'true', 'yes', 'on'].includes(access),
  };
}

/**
 * Fields censored wherever they appear at the top of a log object or one level
 * down: credentials in request headers, tokens and secrets by their API names.
 */
const REDACTED_FIELDS = [
  'authorization',
  'cookie',
  'token',
  'secret',
  'hmac_secret',
  'control_secret',
  'password',
  'api_key',
  'x-control-secret',
] as const;

const REDACT_PATHS = [
  ...REDACTED_FIELDS.flatMap((f) => [`["${f}"]`, `*["${f}"]`]),
  ...['authorization', 'cookie'].map((h) => `req.headers["${h}"]`),
  ...['authorization', 'cookie'].map((h) => `headers["${h}"]`),
];

export const REDACTED = '[redacted]';

/** An error as a log field: its type, message and stack (which repeats the message), nothing else it carries. */
function errorFields(err: unknown): { type: string; message: string; stack?: string; code?: string } {
  if (!(err instanceof Error)) return { type: typeof err, message: String(err) };
  const code = (err as { code?: unknown }).code;
  return {
    type: err.name,
    message: err.message,
    ...(err.stack !== undefined ? { stack: err.stack } : {}),
    ...(typeof code === 'string' ? { code } : {}),
  };
}

/** A logger at `level` writing to `destination` (standard error by default, synchronously: failures are rare and must not be lost). */
export function createLogger(opts: { level?: LogLevel } = {}, destination?: DestinationStream): Logger {
  return pino(
    {
      level: opts.level ?? 'info',
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: errorFields },
      redact: { paths: REDACT_PATHS, censor: REDACTED },
    },
    destination ?? pino.destination({ fd: 2, sync: true }),
  );
}

let fallback: Logger | null = null;

/** The logger of an app built without one (tests, the benchmarks' gateway): standard error, level info. */
export function fallbackLogger(): Logger {
  fallback ??= createLogger();
  return fallback;
}
