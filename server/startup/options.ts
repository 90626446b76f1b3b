/**
 * Start options of the gateway: command-line flags, with environment
 * variables as fallbacks (a flag always wins over its variable).
 *
 * Decisions (docs/decisions/002-startup-and-defaults.md): the API listens on
 * 127.0.0.1:8420; the Control API is off unless asked for (--control,
 * --control-port or --control-secret, or their variables) and then listens on
 * loopback only, 127.0.0.1:8429 by default.
 */
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { checkEnvironment, environmentHelp, type Env } from './environment.ts';
import { CONNECTION_DEFAULTS, type ConnectionLimits } from '../kernel/http/connection-limits.ts';
import { SERVER_VERSION } from '../kernel/version.ts';
import { clip } from '../../common/clip.ts';

export interface ControlOptions {
  /** Always a loopback address. */
  host: string;
  port: number;
  /** The secret given at start, or null to read or generate <data>/control-secret. */
  secret: string | null;
}

export interface StartOptions {
  host: string;
  port: number;
  /** null: the Control API is off. */
  control: ControlOptions | null;
  /** Absolute path of the data folder. */
  dataDir: string;
  /** Switch the Automation API on at start, as a user flipping the switch would (stored). */
  enableApi: boolean;
  /** Port of the LAN listener (a later feature); parsed, not used yet. */
  lanPort: number;
  /** Slow-client limits given at start (docs/decisions/023-slow-clients.md); the rest keep their defaults. */
  limits: Partial<ConnectionLimits>;
}

/** help: print `text` and exit 0 (--help or --version); else start with `options`. */
export type ParsedOptions = { help: true; text: string } | { help: false; options: StartOptions; warnings: string[] };

/** A start option that cannot be used; main.ts prints it and exits with code 2. */
export class OptionsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OptionsError';
  }
}

export const DEFAULTS = {
  host: '127.0.0.1',
  port: 8420,
  controlHost: '127.0.0.1',
  controlPort: 8429,
  dataDir: './data',
  lanPort: 8421,
} as const;

export const USAGE = `Usage: npm start -- [options]      (or: node server/main.ts [options])

Starts the Meeting Automation Service gateway.

Options (each has an environment variable; a flag wins over its variable):
  --host H              API listen address            MAS_HOST          (default ${DEFAULTS.host})
  --port P              API port, 0 for any free one  MAS_PORT          (default ${DEFAULTS.port})
  --data-dir D          data folder                   MAS_DATA_DIR      (default ${DEFAULTS.dataDir})
  --enable-api          switch the Automation API on at start (stored, as the
                        settings switch would)        MAS_ENABLE_API=1
  --control             serve the Control API on ${DEFAULTS.controlHost}:${DEFAULTS.controlPort}
                                                      MAS_CONTROL=1
  --control-port C      Control API port (implies --control)
                                                      MAS_CONTROL_PORT
  --control-host H      Control API address; loopback only
                                                      MAS_CONTROL_HOST  (default ${DEFAULTS.controlHost})
  --control-secret S    Control API secret (implies --control); without it the
                        secret is read from, or generated into, <data>/control-secret
                                                      MAS_CONTROL_SECRET
  --lan-port L          port of the LAN listener (HTTPS on 0.0.0.0 while the
                        lan_enabled setting is on)
                                                      MAS_LAN_PORT      (default ${DEFAULTS.lanPort})
  --headers-timeout S   seconds a client has to send its request headers
                                                      MAS_HEADERS_TIMEOUT (default ${CONNECTION_DEFAULTS.headersTimeoutMs / 1000})
  --body-timeout S      seconds a client has to send a whole JSON body
                                                      MAS_BODY_TIMEOUT  (default ${CONNECTION_DEFAULTS.bodyTimeoutMs / 1000})
  --idle-timeout S      seconds a connection may stay silent while the
                        server waits for the client (SSE waits exempt)
                                                      MAS_IDLE_TIMEOUT  (default ${CONNECTION_DEFAULTS.idleTimeoutMs / 1000})
  --max-connections N   open connections per API listener, 0 for no cap
                                                      MAS_MAX_CONNECTIONS (default ${CONNECTION_DEFAULTS.maxConnections})
  -h, --help            print this help
  -v, --version         print the version
${environmentHelp()}`;

const OPTION_SPEC = {
  host: { type: 'string' },
  port: { type: 'string' },
  'data-dir': { type: 'string' },
  'enable-api': { type: 'boolean' },
  control: { type: 'boolean' },
  'control-port': { type: 'string' },
  'control-host': { type: 'string' },
  'control-secret': { type: 'string' },
  'lan-port': { type: 'string' },
  'headers-timeout': { type: 'string' },
  'body-timeout': { type: 'string' },
  'idle-timeout': { type: 'string' },
  'max-connections': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

export function parseOptions(argv: readonly string[], env: Env = process.env): ParsedOptions {
  const values = parseFlags(argv);
  if (values.help === true) return { help: true, text: USAGE };
  if (values.version === true) return { help: true, text: `Meeting Automation Service gateway ${SERVER_VERSION}\n` };
  // Every MAS_* variable is checked before any is used, flag or not (server/startup/environment.ts).
  const envProblem = checkEnvironment(env);
  if (envProblem !== null) throw new OptionsError(envProblem);

  const warnings: string[] = [];
  const pick = (flag: string | undefined, variable: string): { value: string; from: string } | null => {
    if (flag !== undefined) return { value: flag, from: `--${flagOf(variable)}` };
    const fromEnv = env[variable];
    if (fromEnv !== undefined && fromEnv !== '') return { value: fromEnv, from: variable };
    return null;
  };

  const hostPick = pick(values.host, 'MAS_HOST');
  const host = hostPick === null ? DEFAULTS.host : parseHost(hostPick.value, hostPick.from);
  const port = portOf(pick(values.port, 'MAS_PORT'), DEFAULTS.port);
  const lanPort = portOf(pick(values['lan-port'], 'MAS_LAN_PORT'), DEFAULTS.lanPort);
  const dataPick = pick(values['data-dir'], 'MAS_DATA_DIR');
  const dataDir = resolve(dataPick === null ? DEFAULTS.dataDir : dataPick.value);
  const enableApi = values['enable-api'] === true || envFlag(env, 'MAS_ENABLE_API');

  const controlPortPick = pick(values['control-port'], 'MAS_CONTROL_PORT');
  const controlHostPick = pick(values['control-host'], 'MAS_CONTROL_HOST');
  const secretPick = pick(values['control-secret'], 'MAS_CONTROL_SECRET');
  const controlOn =
    values.control === true ||
    values['control-port'] !== undefined ||
    values['control-secret'] !== undefined ||
    (env.MAS_CONTROL !== undefined && env.MAS_CONTROL !== ''
      ? envFlag(env, 'MAS_CONTROL')
      : controlPortPick !== null || secretPick !== null);

  const controlHost = controlHostPick === null ? DEFAULTS.controlHost : parseControlHost(controlHostPick.value, controlHostPick.from);
  let control: ControlOptions | null = null;
  if (controlOn) {
    const controlPort = portOf(controlPortPick, DEFAULTS.controlPort);
    const secret = secretPick === null ? null : parseSecret(secretPick.value, secretPick.from);
    if (secret !== null && secret.length < 16) {
      warnings.push(`the control secret given with ${secretPick?.from} is short (${secret.length} characters); use 16 or more`);
    }
    if (controlPort !== 0 && controlPort === port && sameListener(controlHost, host)) {
      throw new OptionsError(`the Control API and the Automation API cannot share port ${port}; choose another --control-port`);
    }
    control = { host: controlHost, port: controlPort, secret };
  } else if (controlHostPick !== null) {
    warnings.push(`${controlHostPick.from} has no effect: the Control API is off (add --control)`);
  }

  const limits: Partial<ConnectionLimits> = {};
  const headersTimeout = secondsOf(pick(values['headers-timeout'], 'MAS_HEADERS_TIMEOUT'));
  if (headersTimeout !== null) limits.headersTimeoutMs = headersTimeout;
  const bodyTimeout = secondsOf(pick(values['body-timeout'], 'MAS_BODY_TIMEOUT'));
  if (bodyTimeout !== null) limits.bodyTimeoutMs = bodyTimeout;
  const idleTimeout = secondsOf(pick(values['idle-timeout'], 'MAS_IDLE_TIMEOUT'));
  if (idleTimeout !== null) limits.idleTimeoutMs = idleTimeout;
  const maxConnections = countOf(pick(values['max-connections'], 'MAS_MAX_CONNECTIONS'));
  if (maxConnections !== null) limits.maxConnections = maxConnections;

  return { help: false, options: { host, port, control, dataDir, enableApi, lanPort, limits }, warnings };
}

function parseFlags(argv: readonly string[]) {
  try {
    return parseArgs({ args: [...argv], options: OPTION_SPEC, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new OptionsError(describeParseError(err));
  }
}

function flagOf(variable: string): string {
  return variable.replace(/^MAS_/, '').toLowerCase().replaceAll('_', '-');
}

function describeParseError(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const name = /'([^']+)'/.exec(message)?.[1] ?? 'an option';
    return `unknown option ${name}`;
  }
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    const name = /'([^']+)'/.exec(message)?.[1] ?? '';
    return `unexpected argument ${name}`.trim();
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    // e.g. "--port" given without a value, or a value given to a switch.
    return message.split('\n')[0] ?? message;
  }
  return message.split('\n')[0] ?? message;
}

function portOf(picked: { value: string; from: string } | null, fallback: number): number {
  if (picked === null) return fallback;
  const text = picked.value.trim();
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) {
    throw new OptionsError(`${picked.from} must be a port number from 0 to 65535, got "${clip(picked.value, 40)}"`);
  }
  return Number(text);
}

/**
 * A timeout in seconds (fractions allowed), returned in milliseconds. Zero is
 * refused: it would switch the protection off, which no flag should do quietly.
 */
function secondsOf(picked: { value: string; from: string } | null): number | null {
  if (picked === null) return null;
  const text = picked.value.trim();
  const seconds = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || seconds <= 0 || seconds > 86_400) {
    throw new OptionsError(`${picked.from} must be a number of seconds above 0 and at most 86400, got "${clip(picked.value, 40)}"`);
  }
  return Math.round(seconds * 1000);
}

function countOf(picked: { value: string; from: string } | null): number | null {
  if (picked === null) return null;
  const text = picked.value.trim();
  if (!/^\d{1,7}$/.test(text))
    throw new OptionsError(`${picked.from} must be a whole number from 0 to 9999999, got "${clip(picked.value, 40)}"`);
  return Number(text);
}

function parseHost(value: string, from: string): string {
  const host = value.trim();
  if (host === '' || /[\s/]/.test(host)) throw new OptionsError(`${from} must be a host name or IP address, got "${clip(value, 40)}"`);
  return unbracket(host);
}

function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** The Control API never leaves the machine: only loopback addresses are accepted. */
function parseControlHost(value: string, from: string): string {
  const host = unbracket(value.trim());
  if (!isLoopback(host)) {
    throw new OptionsError(`${from} must be a loopback address (127.0.0.1 or ::1): the Control API is never served off this machine`);
  }
  return host === 'localhost' ? '127.0.0.1' : host;
}

function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}

function sameListener(a: string, b: string): boolean {
  const wildcard = (h: string) => h === '0.0.0.0' || h === '::';
  return a === b || wildcard(a) || wildcard(b);
}

/** A secret travels in `Authorization: Bearer <secret>`: visible ASCII only. */
function parseSecret(value: string, from: string): string {
  if (!/^[\x21-\x7e]{1,512}$/.test(value)) {
    throw new OptionsError(`${from} must be 1 to 512 visible ASCII characters (no spaces)`);
  }
  return value;
}

function envFlag(env: Env, name: string): boolean {
  const raw = env[name];
  if (raw === undefined) return false;
  const value = raw.trim().toLowerCase();
  if (value === '1' || value === 'true' || value === 'yes' || value === 'on') return true;
  if (value === '' || value === '0' || value === 'false' || value === 'no' || value === 'off') return false;
  throw new OptionsError(`${name} must be 1/true or 0/false, got "${clip(raw, 40)}"`);
}
