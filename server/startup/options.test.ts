import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { DEFAULTS, OptionsError, parseOptions, USAGE, type StartOptions } from './options.ts';
import { SERVER_VERSION } from '../kernel/version.ts';
import { logSettingsFrom } from '../kernel/http/logger.ts';

function opts(argv: string[], env: Record<string, string> = {}): StartOptions {
  const parsed = parseOptions(argv, env);
  assert.equal(parsed.help, false);
  if (parsed.help) throw new Error('unreachable');
  return parsed.options;
}

function refused(argv: string[], env: Record<string, string> = {}): string {
  try {
    parseOptions(argv, env);
  } catch (err) {
    assert.ok(err instanceof OptionsError, String(err));
    return err.message;
  }
  assert.fail(`expected ${argv.join(' ')} to be refused`);
}

test('no options: loopback 8420, ./data, control off, API switch untouched', () => {
  const o = opts([]);
  assert.deepEqual(o, {
    host: '127.0.0.1',
    port: 8420,
    control: null,
    dataDir: resolve('./data'),
    enableApi: false,
    lanPort: 8421,
    limits: {},
  });
});

test('--control turns the Control API on at 127.0.0.1:8429 with a file secret', () => {
  assert.deepEqual(opts(['--control']).control, { host: '127.0.0.1', port: DEFAULTS.controlPort, secret: null });
});

test('--control-port and --control-secret each imply --control', () => {
  assert.deepEqual(opts(['--control-port', '9001']).control, { host: '127.0.0.1', port: 9001, secret: null });
  const secret = 'a-long-enough-control-secret';
  assert.deepEqual(opts([`--control-secret=${secret}`]).control, { host: '127.0.0.1', port: 8429, secret });
});

test('every flag is read', () => {
  const o = opts([
    '--host',
    '::1',
    '--port',
    '0',
    '--data-dir',
    '/tmp/mas-x',
    '--enable-api',
    '--control-port',
    '0',
    '--control-secret',
    'sssssssssssssssss',
    '--lan-port',
    '9421',
  ]);
  assert.deepEqual(o, {
    host: '::1',
    port: 0,
    control: { host: '127.0.0.1', port: 0, secret: 'sssssssssssssssss' },
    dataDir: '/tmp/mas-x',
    enableApi: true,
    lanPort: 9421,
    limits: {},
  });
});

test('environment variables stand in for flags', () => {
  const o = opts([], {
    MAS_HOST: '127.0.0.2',
    MAS_PORT: '9000',
    MAS_DATA_DIR: '/tmp/mas-env',
    MAS_CONTROL: 'true',
    MAS_CONTROL_PORT: '9009',
    MAS_ENABLE_API: '1',
  });
  assert.equal(o.host, '127.0.0.2');
  assert.equal(o.port, 9000);
  assert.equal(o.dataDir, '/tmp/mas-env');
  assert.equal(o.enableApi, true);
  assert.deepEqual(o.control, { host: '127.0.0.1', port: 9009, secret: null });
  assert.deepEqual(opts([], { MAS_CONTROL_SECRET: 'env-secret-0123456789' }).control?.secret, 'env-secret-0123456789');
  assert.equal(opts([], { MAS_CONTROL: '0' }).control, null);
  assert.equal(opts([], { MAS_ENABLE_API: 'false' }).enableApi, false);
});

test('a flag wins over its environment variable', () => {
  const o = opts(['--port', '1234', '--data-dir', '/tmp/flag', '--control-port', '4321'], {
    MAS_PORT: '9000',
    MAS_DATA_DIR: '/tmp/env',
    MAS_CONTROL_PORT: '9009',
  });
  assert.equal(o.port, 1234);
  assert.equal(o.dataDir, '/tmp/flag');
  assert.equal(o.control?.port, 4321);
  assert.notEqual(opts(['--control'], { MAS_CONTROL: '0' }).control, null);
});

test('unknown flags, positionals and missing values are refused', () => {
  assert.match(refused(['--bogus']), /unknown option --bogus/);
  assert.match(refused(['serve']), /unexpected argument serve/);
  assert.match(refused(['--port']), /--port/);
  assert.match(refused(['--enable-api=yes']), /--enable-api/);
});

test('ports must be 0..65535', () => {
  for (const bad of ['-1', '65536', 'http', '80.5', '']) {
    assert.match(refused([`--port=${bad}`]), /--port must be a port number/);
  }
  assert.match(refused([], { MAS_CONTROL_PORT: 'x' }), /MAS_CONTROL_PORT must be a port number/);
  assert.match(refused(['--lan-port', '99999']), /--lan-port/);
});

test('the control listener is loopback only', () => {
  assert.match(refused(['--control', '--control-host', '0.0.0.0']), /loopback/);
  assert.match(refused(['--control', '--control-host', '192.168.1.5']), /loopback/);
  assert.match(refused(['--control'], { MAS_CONTROL_HOST: '::' }), /loopback/);
  assert.equal(opts(['--control', '--control-host', '::1']).control?.host, '::1');
  assert.equal(opts(['--control', '--control-host', 'localhost']).control?.host, '127.0.0.1');
});

test('the two APIs cannot share a port', () => {
  assert.match(refused(['--port', '9000', '--control-port', '9000']), /cannot share port/);
  assert.equal(opts(['--port', '0', '--control-port', '0']).control?.port, 0);
});

test('a control secret must fit a bearer header; a short one is warned about', () => {
  assert.match(refused(['--control-secret', 'has space']), /visible ASCII/);
  const parsed = parseOptions(['--control-secret', 'short'], {});
  assert.ok(!parsed.help && parsed.warnings.some((w) => w.includes('short')));
});

test('boolean variables accept 1/true and 0/false only', () => {
  assert.match(refused([], { MAS_ENABLE_API: 'maybe' }), /MAS_ENABLE_API must be 1\/true or 0\/false/);
});

test('the recognizer-process count is a whole number from 1 (decision 094)', () => {
  for (const bad of ['0', 'two', '1.5', '-2'])
    assert.match(refused([], { MAS_RECOGNIZER_PROCESSES: bad }), /MAS_RECOGNIZER_PROCESSES must be a whole number of processes/);
  assert.ok(!parseOptions([], { MAS_RECOGNIZER_PROCESSES: '2' }).help);
});

test('--help asks for the usage text', () => {
  assert.deepEqual(parseOptions(['--help'], {}), { help: true, text: USAGE });
  assert.deepEqual(parseOptions(['-h'], {}), { help: true, text: USAGE });
});

test('main.ts: --help prints usage and exits 0; an unknown flag exits 2 with one clear line', () => {
  const main = resolve(import.meta.dirname, '..', 'main.ts');
  const help = spawnSync(process.execPath, [main, '--help'], { encoding: 'utf8', timeout: 20_000 });
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /--control-port/);
  const bad = spawnSync(process.execPath, [main, '--frobnicate'], { encoding: 'utf8', timeout: 20_000 });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /^mas: unknown option --frobnicate \(see --help\)\n$/);
  assert.doesNotMatch(bad.stderr, /at .*\.ts:\d+/);
});

test('slow-client limits: seconds for the timeouts, a count for connections, flag over variable', () => {
  assert.deepEqual(opts(['--headers-timeout', '5', '--body-timeout', '2.5', '--idle-timeout', '90', '--max-connections', '0']).limits, {
    headersTimeoutMs: 5_000,
    bodyTimeoutMs: 2_500,
    idleTimeoutMs: 90_000,
    maxConnections: 0,
  });
  assert.deepEqual(
    opts(['--idle-timeout', '30'], { MAS_IDLE_TIMEOUT: '60', MAS_HEADERS_TIMEOUT: '10', MAS_MAX_CONNECTIONS: '500' }).limits,
    { headersTimeoutMs: 10_000, idleTimeoutMs: 30_000, maxConnections: 500 },
  );
  assert.match(refused(['--headers-timeout', '0']), /--headers-timeout must be a number of seconds above 0/);
  assert.match(refused(['--body-timeout', 'soon']), /--body-timeout must be a number of seconds/);
  assert.match(refused([], { MAS_IDLE_TIMEOUT: '-1' }), /MAS_IDLE_TIMEOUT must be a number of seconds/);
  assert.match(refused(['--max-connections', '1e3']), /--max-connections must be a whole number/);
});

// ── the environment schema (server/startup/environment.ts) ─────────────────────────

test('an unknown MAS_* variable is refused, with the near name it was probably meant as', () => {
  assert.equal(refused([], { MAS_PROT: '9000' }), 'unknown environment variable MAS_PROT (did you mean MAS_PORT?)');
  assert.equal(refused([], { MAS_SOMETHING_ELSE: '1' }), 'unknown environment variable MAS_SOMETHING_ELSE');
  // Flags do not excuse a bad variable: the whole environment is checked at start.
  assert.match(refused(['--port', '0'], { MAS_PORT: 'eighty' }), /^MAS_PORT must be a port number/);
});

test('an empty MAS_* variable counts as unset', () => {
  assert.equal(opts([], { MAS_PORT: '', MAS_HOST: '', MAS_CONTROL_SECRET: '' }).port, 8420);
});

test('malformed adapter variables are refused at start', () => {
  assert.equal(refused([], { MAS_SUMMARY_URL: 'ftp://x' }), 'MAS_SUMMARY_URL must be an http:// or https:// URL, got "ftp://x"');
  assert.match(refused([], { MAS_TRANSCRIBE_URL: 'not a url' }), /^MAS_TRANSCRIBE_URL must be an http/);
  assert.match(refused([], { MAS_SUMMARY_TIMEOUT_MS: '1.5s' }), /^MAS_SUMMARY_TIMEOUT_MS must be a whole number of milliseconds/);
  assert.match(refused([], { MAS_VIRTUAL_DEVICES: 'alsa' }), /^MAS_VIRTUAL_DEVICES /);
  assert.match(refused([], { MAS_FAILPOINTS: 'migration.before-commit' }), /^MAS_FAILPOINTS must be a comma-separated list/);
  assert.equal(refused([], { MAS_CONTROL_PORT: 'x' }), 'MAS_CONTROL_PORT must be a port number from 0 to 65535, got "x"');
  assert.match(refused([], { MAS_LOG_LEVEL: 'verbose' }), /^MAS_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent/);
  assert.match(refused([], { MAS_ACCESS_LOG: 'sometimes' }), /^MAS_ACCESS_LOG must be 1\/true or 0\/false/);
});

test('the log variables: level info and no access log unless asked', () => {
  assert.deepEqual(logSettingsFrom({}), { level: 'info', accessLog: false });
  assert.deepEqual(logSettingsFrom({ MAS_LOG_LEVEL: 'DEBUG', MAS_ACCESS_LOG: '1' }), { level: 'debug', accessLog: true });
  assert.deepEqual(logSettingsFrom({ MAS_LOG_LEVEL: '', MAS_ACCESS_LOG: 'off' }), { level: 'info', accessLog: false });
  assert.equal(opts([], { MAS_LOG_LEVEL: 'warn', MAS_ACCESS_LOG: 'yes' }).port, 8420, 'well-formed, so the gateway starts');
});

test("well-formed gateway variables and the other tools' variables start the gateway", () => {
  const o = opts([], {
    MAS_TOKEN: 'a token for the mas command line',
    MAS_BASE_URL: 'http://127.0.0.1:8420',
    MAS_CONTROL_URL: 'http://127.0.0.1:8429',
    MAS_FUZZ_RUNS: '10',
    MAS_SUMMARY_URL: 'http://127.0.0.1:11434/v1',
    MAS_SUMMARY_API_KEY: 'k',
    MAS_SUMMARY_TIMEOUT_MS: '1500',
    MAS_TRANSCRIBE_URL: '',
    MAS_WHISPER_CPP_BIN: '/opt/whisper/whisper-cli',
    MAS_VIRTUAL_DEVICES: 'pulse',
    MAS_FAILPOINTS: 'migration.before-commit=700',
    MAS_PORT: '9000',
  });
  assert.equal(o.port, 9000);
});

test('--help lists the flags and the variables; --version prints the package version', () => {
  const help = parseOptions(['--help'], { MAS_PROT: 'help is printed even with a bad environment' });
  assert.ok(help.help);
  for (const word of [
    '--port',
    '--version',
    'MAS_PORT',
    'MAS_SUMMARY_URL',
    'MAS_WHISPER_CPP_BIN',
    'MAS_TOKEN',
    'MAS_LOG_LEVEL',
    'MAS_ACCESS_LOG',
  ])
    assert.ok(help.text.includes(word), word);
  const version = parseOptions(['--version'], {});
  assert.deepEqual(version, { help: true, text: `Meeting Automation Service gateway ${SERVER_VERSION}\n` });
});

test('main.ts: a bad variable exits 2 with one line before anything starts', () => {
  const main = resolve(import.meta.dirname, '..', 'main.ts');
  const env = { PATH: process.env.PATH ?? '', MAS_SUMMARY_URL: 'ftp://x', MAS_DATA_DIR: '/nonexistent/never-created' };
  const bad = spawnSync(process.execPath, [main], { encoding: 'utf8', timeout: 20_000, env });
  assert.equal(bad.status, 2);
  assert.equal(bad.stderr, 'mas: MAS_SUMMARY_URL must be an http:// or https:// URL, got "ftp://x" (see --help)\n');
  const version = spawnSync(process.execPath, [main, '--version'], { encoding: 'utf8', timeout: 20_000 });
  assert.equal(version.status, 0);
  assert.equal(version.stdout, `Meeting Automation Service gateway ${SERVER_VERSION}\n`);
});
