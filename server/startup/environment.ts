/**
 * The gateway's environment variables: one zod schema, checked once at start
 * (server/main.ts through parseOptions), so that a misspelt or malformed
 * `MAS_*` variable stops the start with one line instead of being ignored
 * until the feature that reads it runs (docs/decisions/050-environment-schema.md).
 *
 * Three kinds of `MAS_*` names:
 * - the gateway's own (GATEWAY_VARIABLES): start options (server/startup/options.ts
 *   reads them with their flags) and adapter settings (server/adapters/ reads
 *   them when a job needs them); each is validated here;
 * - names other programs of this repository read (FOREIGN_VARIABLES): the `mas`
 *   command line's MAS_TOKEN and MAS_BASE_URL, the device simulator's and the
 *   conformance runner's MAS_CONTROL_URL, the test suites' seeds and switches.
 *   A shell that exports MAS_TOKEN for `mas` must still start the gateway, so
 *   these are accepted and ignored;
 * - anything else: refused as unknown (most likely a typo of one of the above).
 */
import { z } from 'zod';
import { LOG_LEVELS } from '../kernel/http/logger.ts';
import { clip } from '../../common/clip.ts';

/** A name in the schema, its help line and its check. */
interface Variable {
  help: string;
  schema: z.ZodType;
}

const BOOLEAN_WORDS = ['1', 'true', 'yes', 'on', '0', 'false', 'no', 'off', ''];

const port = z
  .string()
  .trim()
  .regex(/^\d{1,5}$/, 'must be a port number from 0 to 65535')
  .refine((v) => Number(v) <= 65_535, 'must be a port number from 0 to 65535');
const flag = z.string().refine((v) => BOOLEAN_WORDS.includes(v.trim().toLowerCase()), 'must be 1/true or 0/false');
const seconds = z
  .string()
  .trim()
  .regex(/^\d+(\.\d+)?$/, 'must be a number of seconds above 0 and at most 86400')
  .refine((v) => Number(v) > 0 && Number(v) <= 86_400, 'must be a number of seconds above 0 and at most 86400');
const count = z
  .string()
  .trim()
  .regex(/^\d{1,7}$/, 'must be a whole number from 0 to 9999999');
const text = z.string();
/** Processes to run side by side: at least one; more than a machine's cores only queue (decision 094). */
const processCount = z
  .string()
  .trim()
  .regex(/^\d{1,3}$/, 'must be a whole number of processes from 1 to 256')
  .refine((v) => Number(v) >= 1 && Number(v) <= 256, 'must be a whole number of processes from 1 to 256');
/** Same rule as normalizeBaseUrl (adapters/asr/openai-compatible.ts): an http(s) URL, or empty for "not configured". */
const baseUrl = z.string().refine((v) => {
  if (v.trim() === '') return true;
  try {
    const { protocol } = new URL(v.trim());
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}, 'must be an http:// or https:// URL');
const positiveMs = z
  .string()
  .trim()
  .refine((v) => v === '' || (/^\d{1,9}$/.test(v) && Number(v) > 0), 'must be a whole number of milliseconds above 0');
/** `name=milliseconds[,name=milliseconds]` (server/kernel/failpoints.ts). */
const failpoints = z
  .string()
  .refine(
    (v) => v.trim() === '' || v.split(',').every((item) => /^\s*[\w.-]+\s*=\s*\d+(\.\d+)?\s*$/.test(item)),
    'must be a comma-separated list of name=milliseconds',
  );

const GATEWAY_VARIABLES = {
  // Start options: each has a flag (server/startup/options.ts), which wins over it.
  MAS_HOST: { help: 'API listen address (--host)', schema: text },
  MAS_PORT: { help: 'API port (--port)', schema: port },
  MAS_DATA_DIR: { help: 'data folder (--data-dir)', schema: text },
  MAS_ENABLE_API: { help: 'switch the Automation API on at start (--enable-api)', schema: flag },
  MAS_CONTROL: { help: 'serve the Control API (--control)', schema: flag },
  MAS_CONTROL_PORT: { help: 'Control API port (--control-port)', schema: port },
  MAS_CONTROL_HOST: { help: 'Control API address, loopback only (--control-host)', schema: text },
  MAS_CONTROL_SECRET: { help: 'Control API secret (--control-secret)', schema: text },
  MAS_LAN_PORT: { help: 'LAN listener port (--lan-port)', schema: port },
  MAS_HEADERS_TIMEOUT: { help: 'seconds to send request headers (--headers-timeout)', schema: seconds },
  MAS_BODY_TIMEOUT: { help: 'seconds to send a JSON body (--body-timeout)', schema: seconds },
  MAS_IDLE_TIMEOUT: { help: 'seconds a connection may stay silent (--idle-timeout)', schema: seconds },
  MAS_MAX_CONNECTIONS: { help: 'open connections per API listener (--max-connections)', schema: count },
  // Adapters (docs/decisions/011-recognizers-and-summarizers.md): read when a job selects them.
  MAS_WHISPER_CPP_BIN: { help: 'whisper.cpp binary for the whisper-cpp recognizer', schema: text },
  MAS_WHISPER_CPP_MODEL: { help: 'default whisper.cpp model file', schema: text },
  MAS_TRANSCRIBE_URL: { help: 'OpenAI-compatible transcription endpoint', schema: baseUrl },
  MAS_TRANSCRIBE_API_KEY: { help: 'its API key', schema: text },
  MAS_TRANSCRIBE_MODEL: { help: 'its model name', schema: text },
  MAS_RECOGNIZER_PROCESSES: { help: 'pocketsphinx processes per recording, side by side (default: one per core)', schema: processCount },
  MAS_SUMMARY_URL: { help: 'OpenAI-compatible chat endpoint for summaries', schema: baseUrl },
  MAS_SUMMARY_API_KEY: { help: 'its API key', schema: text },
  MAS_SUMMARY_MODEL: { help: 'its default model name', schema: text },
  MAS_SUMMARY_TIMEOUT_MS: { help: 'how long one summary request may take, ms', schema: positiveMs },
  // The log (server/kernel/http/logger.ts, docs/decisions/064-structured-logs.md).
  MAS_LOG_LEVEL: {
    help: 'log level: fatal, error, warn, info (default), debug, trace or silent',
    schema: z
      .string()
      .refine(
        (v) => v.trim() === '' || (LOG_LEVELS as readonly string[]).includes(v.trim().toLowerCase()),
        `must be one of ${LOG_LEVELS.join(', ')}`,
      ),
  },
  MAS_ACCESS_LOG: { help: 'one log line per API request, 1 to switch on (off by default)', schema: flag },
  // Devices and fault tests.
  MAS_VIRTUAL_DEVICES: { help: 'virtual device transport: auto, pulse or in-process', schema: z.enum(['auto', 'pulse', 'in-process', '']) },
  MAS_FAILPOINTS: { help: 'fault tests only: name=milliseconds pauses (decision 024)', schema: failpoints },
} as const satisfies Record<string, Variable>;

/** Read by other programs of this repository; the gateway accepts and ignores them. */
const FOREIGN_VARIABLES: Readonly<Record<string, string>> = {
  MAS_TOKEN: 'the mas command line',
  MAS_BASE_URL: 'the mas command line and the conformance runner',
  MAS_CONTROL_URL: 'the device simulator and the conformance runner',
  MAS_AUTH_RUNS: 'server/kernel/auth.test.ts',
  MAS_AUTH_SEED: 'server/kernel/auth.test.ts',
  MAS_FUZZ_RUNS: 'server/bad-input.test.ts',
  MAS_FUZZ_SEED: 'server/bad-input.test.ts',
  MAS_FUZZ_PATH: 'server/bad-input.test.ts',
  MAS_FAULTS_LONG: 'the fault tests',
  MAS_FAULTS_SEED: 'the fault tests',
};

const SCHEMA = z.object(Object.fromEntries(Object.entries(GATEWAY_VARIABLES).map(([name, v]) => [name, v.schema.optional()])));

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * Checks every `MAS_*` variable of `env`; returns null when all are usable,
 * else one line naming the first that is not. Values of secrets are never echoed.
 */
export function checkEnvironment(env: Env): string | null {
  const ours: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    // An empty value counts as unset, as it did before the schema and as the
    // start options read it (`MAS_PORT= npm start` starts on the default port).
    if (!name.startsWith('MAS_') || value === undefined || value === '') continue;
    if (name in GATEWAY_VARIABLES) ours[name] = value;
    else if (!(name in FOREIGN_VARIABLES)) return `unknown environment variable ${name}${suggestion(name)}`;
  }
  const result = SCHEMA.safeParse(ours);
  if (result.success) return null;
  const issue = result.error.issues[0];
  const name = String(issue?.path[0] ?? '');
  const shown = /SECRET|KEY/.test(name) ? '' : `, got "${clip(ours[name] ?? '', 40)}"`;
  return `${name} ${issue?.message ?? 'is not valid'}${shown}`;
}

/** The help section that lists the variables (printed by --help under the flags). */
export function environmentHelp(): string {
  const adapters = Object.entries(GATEWAY_VARIABLES).filter(
    ([name]) => !/\(--/.test(GATEWAY_VARIABLES[name as keyof typeof GATEWAY_VARIABLES].help),
  );
  const width = Math.max(...adapters.map(([name]) => name.length)) + 2;
  const lines = [
    '',
    'Environment variables besides those of the flags above (an unknown or',
    'malformed MAS_* variable stops the start with exit code 2):',
  ];
  for (const [name, v] of adapters) lines.push(`  ${name.padEnd(width)}${v.help}`);
  lines.push('  Accepted and ignored (read by other tools of this repository):');
  lines.push(`    ${Object.keys(FOREIGN_VARIABLES).join(' ')}`);
  return `${lines.join('\n')}\n`;
}

/** "did you mean" for a name one edit away from a known one (MAS_PROT → MAS_PORT). */
function suggestion(name: string): string {
  const known = [...Object.keys(GATEWAY_VARIABLES), ...Object.keys(FOREIGN_VARIABLES)];
  const near = known.find((k) => distance(k, name) <= 2);
  return near === undefined ? '' : ` (did you mean ${near}?)`;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0] ?? 0;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j] ?? 0;
      row[j] = Math.min(current + 1, (row[j - 1] ?? 0) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length] ?? 0;
}
