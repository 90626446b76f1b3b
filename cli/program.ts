/**
 * `mas`: the Meeting Automation Service from the command line. One command
 * per operation of API.md, over the typed client (client/client.ts), with
 * commander for parsing and help (docs/decisions/048-mas-command-line.md).
 * The commands themselves are rows of data, one module per resource in
 * cli/commands/ (command-table.ts says their shape); this file turns the
 * table into commander commands and runs one.
 *
 * main() never exits the process; it returns the exit code:
 *   0 done; 1 the API refused (4xx) or the awaited work ended failed or
 *   cancelled; 2 bad command line; 3 a server error (5xx) or the service
 *   could not be reached; 4 a wait ran out of time; 130 interrupted (Ctrl+C).
 */
import { Command, CommanderError } from 'commander';
import { MasClient, TransportError } from '../client/client.ts';
import { commanderOption, isGroup, type CommandRow, type TableRow } from './command-table.ts';
import { CONFIG_COMMANDS } from './commands/config.ts';
import { JOB_COMMANDS } from './commands/jobs.ts';
import { MEETING_COMMANDS } from './commands/meetings.ts';
import { PAIRING_COMMANDS } from './commands/pairing.ts';
import { RECORDING_COMMANDS } from './commands/recording.ts';
import { SUMMARY_COMMANDS } from './commands/summary.ts';
import { SYSTEM_COMMANDS } from './commands/system.ts';
import { WEBHOOK_COMMANDS } from './commands/webhooks.ts';
import { EXIT, Exit, type Context, type Io } from './context.ts';
import { ProgressLine } from './progress.ts';
import { resolveTarget, UsageError } from './settings.ts';

export type { Io } from './context.ts';

/** Every command, in the order `mas --help` lists them. */
const COMMAND_TABLE: readonly TableRow[] = [
  ...SYSTEM_COMMANDS,
  ...MEETING_COMMANDS,
  ...SUMMARY_COMMANDS,
  ...CONFIG_COMMANDS,
  ...JOB_COMMANDS,
  ...RECORDING_COMMANDS,
  ...WEBHOOK_COMMANDS,
  ...PAIRING_COMMANDS,
];

const EXIT_HELP = `
Exit codes:
  0    done
  1    the API refused the request (4xx), or the awaited job, summary or recording ended failed
  2    bad command line (unknown command or option, missing argument, unreadable file)
  3    the service answered with a server error (5xx) or could not be reached
  4    a wait ran out of time (--timeout)
  130  interrupted (Ctrl+C); an interrupted upload is aborted and imports nothing

Token: --token, else MAS_TOKEN, else "token" in $XDG_CONFIG_HOME/mas/config.json
(~/.config/mas/config.json); the file may also hold "base_url", "ca" and "insecure".
Errors print on one line: HTTP <status> <code>[/<sub-code>]: <message>.
--json prints the API's own JSON (and an error's envelope) on stdout, for scripts.`;

export function buildProgram(io: Io): Command {
  const program = new Command('mas');
  program
    .description('The Meeting Automation Service from the command line: every route of the HTTP API.')
    .version(io.version, '-V, --version', 'print the version of mas')
    .option('--base-url <url>', 'the service (MAS_BASE_URL; default http://127.0.0.1:8420, the loopback listener)')
    .option('--token <token>', 'an API token (MAS_TOKEN, or "token" in the config file)')
    .option('--ca <file>', "PEM certificate to trust for the LAN listener (https://host:8421): the installation's own certificate")
    .option('--insecure', 'accept any certificate on https (a first look at a LAN listener)')
    .option('--json', "print the API's own JSON")
    .option('--no-progress', 'never draw progress, even on a terminal')
    .showHelpAfterError('(add --help for usage)')
    .addHelpText('after', EXIT_HELP)
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .exitOverride();

  const context = (cmd: Command): Context => {
    const g = cmd.optsWithGlobals<{
      baseUrl?: string;
      token?: string;
      ca?: string;
      insecure?: boolean;
      json?: boolean;
      progress?: boolean;
    }>();
    const target = resolveTarget(g, io.env);
    const client = new MasClient({
      baseUrl: target.baseUrl,
      ...(target.token !== undefined ? { token: target.token } : {}),
      ...(target.ca !== undefined ? { ca: target.ca } : {}),
      insecure: target.insecure,
      userAgent: `mas/${io.version}`,
    });
    // Progress only where a person watches: stdout and stderr both terminals, and not asked off.
    const drawing = g.progress !== false && io.stdout.isTTY === true && io.stderr.isTTY === true;
    return { client, target, io, asJson: g.json === true, progress: new ProgressLine(io.stderr, drawing) };
  };

  /** One row of the table as a commander command under `parent`. */
  const addCommand = (parent: Command, row: CommandRow): void => {
    const cmd = parent.command(row.name).description(row.description);
    for (const [name, description] of row.args ?? []) cmd.argument(name, description);
    for (const o of row.options ?? []) cmd.addOption(commanderOption(o));
    cmd.action(async function (this: Command, ...args: unknown[]): Promise<void> {
      // commander passes the positional arguments, the options object, then the command itself.
      await row.run(context(this), ...(args.slice(0, -1) as never[]));
    });
  };
  for (const row of COMMAND_TABLE) {
    if (!isGroup(row)) {
      addCommand(program, row);
      continue;
    }
    const group = program.command(row.name).description(row.description);
    for (const command of row.commands) addCommand(group, command);
  }

  // Every command says how to get help and what the exit codes are.
  for (const cmd of allCommands(program)) {
    if (cmd !== program)
      cmd.addHelpText(
        'after',
        `\nGlobal options (--base-url, --token, --ca, --insecure, --json, --no-progress) and exit codes: mas --help`,
      );
    cmd
      .showHelpAfterError('(add --help for usage)')
      .exitOverride()
      .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
  }
  return program;
}

function allCommands(cmd: Command): Command[] {
  return [cmd, ...cmd.commands.flatMap(allCommands)];
}

/** Runs mas with these arguments; resolves with the exit code. */
export async function main(argv: readonly string[], io: Io): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    if (err instanceof Exit) return err.code;
    if (err instanceof CommanderError) {
      // --help and --version end through exitOverride with code 0.
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (err instanceof UsageError) {
      io.stderr.write(`mas: ${err.message}\n`);
      return EXIT.usage;
    }
    if ((err as { name?: string }).name === 'AbortError' || io.signal.aborted) {
      io.stderr.write('\nmas: interrupted; an upload in progress was aborted and imports nothing (a job already accepted goes on)\n');
      return EXIT.interrupted;
    }
    if (err instanceof TransportError) {
      io.stderr.write(`mas: ${err.message}\n`);
      return EXIT.unreachable;
    }
    io.stderr.write(`mas: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT.unreachable;
  }
}
