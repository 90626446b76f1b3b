/**
 * Entry point: `npm start -- [options]` (see server/startup/options.ts or --help).
 *
 * Starts the gateway, prints where it listens, the startup token and a
 * ready-to-run curl line, and stops cleanly on SIGINT/SIGTERM. A start that
 * fails prints one line and exits 1; a bad option exits 2.
 *
 * Where the simulator is plugged in: it imports simulator/ to put the
 * simulator's virtual devices (which implement the device ports of
 * common/devices.ts) behind the gateway, with this machine's real devices
 * (ALSA's, server/adapters/devices.ts) listed before them. The only other
 * production importer of simulator/ is the Control API (server/control/,
 * whose device routes place the simulator's scenes); dependency-cruiser
 * allows those two and no other (.dependency-cruiser.js). The services
 * themselves are built by the composition root, deps.ts.
 */
import { VirtualDeviceCatalog } from '../simulator/devices/catalog.ts';
import { alsaDevices } from './adapters/devices.ts';
import { Gateway, GatewayStartError } from './gateway.ts';
import { createLogger, logSettingsFrom } from './kernel/http/logger.ts';
import { OptionsError, parseOptions, type StartOptions } from './startup/options.ts';
import { SERVER_VERSION } from './kernel/version.ts';

const NAME = 'mas';

async function main(): Promise<void> {
  let options: StartOptions;
  try {
    const parsed = parseOptions(process.argv.slice(2), process.env);
    if (parsed.help) {
      process.stdout.write(parsed.text);
      return;
    }
    options = parsed.options;
    for (const warning of parsed.warnings) process.stderr.write(`${NAME}: warning: ${warning}\n`);
  } catch (err) {
    if (!(err instanceof OptionsError)) throw err;
    // One line, so that a service manager's log shows the whole reason.
    process.stderr.write(`${NAME}: ${err.message} (see --help)\n`);
    process.exitCode = 2;
    return;
  }

  // Everything the gateway writes (database, recordings, control secret) is for the owner only.
  process.umask(0o077);
  // MAS_LOG_LEVEL and MAS_ACCESS_LOG, checked with every other MAS_* variable by parseOptions.
  const log = logSettingsFrom(process.env);
  let gateway: Gateway;
  try {
    gateway = await Gateway.start({
      logger: createLogger({ level: log.level }),
      accessLog: log.accessLog,
      host: options.host,
      port: options.port,
      dataDir: options.dataDir,
      control: options.control,
      enableApi: options.enableApi,
      lanPort: options.lanPort,
      limits: options.limits,
      makeDevices: (log) => new VirtualDeviceCatalog({ log, real: alsaDevices }),
    });
  } catch (err) {
    const message = err instanceof GatewayStartError || err instanceof Error ? err.message : String(err);
    process.stderr.write(`${NAME}: cannot start: ${message.split('\n')[0]}\n`);
    process.exitCode = 1;
    return;
  }

  process.stdout.write(banner(gateway));
  handleSignals(gateway);
}

function banner(gateway: Gateway): string {
  const api = gateway.api;
  const control = gateway.control;
  const apiOn = gateway.deps.settings.get().automation_api_enabled;
  const lines = [
    `Meeting Automation Service ${SERVER_VERSION} (reference gateway)`,
    '',
    `  Automation API   ${api.url}   (${apiOn ? 'switched on' : 'switched OFF: /v1 routes answer 403 api_disabled; start with --enable-api'})`,
  ];
  if (control !== null) {
    lines.push(`  Control API      ${control.url}   (loopback only)`);
    lines.push(`  Settings page    ${control.url}/settings   (sign in with the control secret)`);
    lines.push(
      gateway.controlSecretFile !== null
        ? `  Control secret   in ${gateway.controlSecretFile}`
        : '  Control secret   the one given with --control-secret / MAS_CONTROL_SECRET',
    );
  } else {
    lines.push('  Control API      off (start with --control to serve it)');
  }
  lines.push(
    `  Data folder      ${gateway.dataDir}`,
    `  Startup token    ${gateway.startupToken}`,
    '                   (scopes read, record, write, delete; replaced at every start)',
    '',
    'Try it:',
    `  curl -H "Authorization: Bearer ${gateway.startupToken}" ${api.url}/v1/whoami`,
  );
  if (control !== null && gateway.controlSecretFile !== null) {
    lines.push(`  curl -H "Authorization: Bearer $(cat ${shellQuote(gateway.controlSecretFile)})" ${control.url}/control`);
  }
  lines.push('', 'Press Ctrl+C to stop.', '');
  return lines.join('\n');
}

function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

function handleSignals(gateway: Gateway): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      process.stderr.write(`${NAME}: ${signal} again, exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    process.stderr.write(`${NAME}: ${signal} received, stopping\n`);
    // Never hang on the way out: an unresponsive socket must not keep the process alive.
    setTimeout(() => process.exit(0), 5000).unref();
    gateway.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`${NAME}: error while stopping: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

await main();
