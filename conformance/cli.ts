#!/usr/bin/env node
/**
 * The conformance suite's command line. Runs the checks against any
 * implementation of API.md by base URL and reports per clause. This file reads
 * the command line and the selection; cli/run-suite.ts runs it, cli/usage.ts
 * holds the help, cli/options.ts the options, cli/reports.ts the reports and
 * the merge subcommand, cli/expected-failures.ts and cli/rerun.ts the
 * baseline of tolerated failures and the rerun of an earlier report's.
 *
 * Exit codes (cli/exit-codes.ts): 0 conformant within the expected failures;
 * 1 a requirement broken; 2 bad usage; 3 the target could not be reached or
 * the run could not start.
 */
import { realpathSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadClauses } from './catalog.ts';
import { readDetail } from './reporters/json.ts';
import { loadChecks } from './runner/registry.ts';
import type { LoadedChecks } from './runner/registry.ts';
import { orderChecks } from './runner/run.ts';
import { describeSelector, parseSelectors, select } from './runner/select.ts';
import { inShard, parseShard } from './runner/shard.ts';
import type { Shard } from './runner/shard.ts';
import { SUITE_NAME, SUITE_VERSION } from './version.ts';
import { UsageError, parseFailOn, parsePercent, readConfig } from './gate.ts';
import { EXIT } from './cli/exit-codes.ts';
import { readExpectedFailures } from './cli/expected-failures.ts';
import type { ExpectedFailures } from './cli/expected-failures.ts';
import { OPTIONS, integer } from './cli/options.ts';
import type { Values } from './cli/options.ts';
import { merge } from './cli/reports.ts';
import { readRerun } from './cli/rerun.ts';
import { runSuite } from './cli/run-suite.ts';
import type { Selection } from './cli/run-suite.ts';
import { shortUsage, usage, usageHint } from './cli/usage.ts';

export { usage } from './cli/usage.ts';
export const USAGE = usage('npm run conformance --');

/** --shard K/N, read as a usage error when malformed. */
function shardOf(text: string | undefined): Shard | undefined {
  if (text === undefined) return undefined;
  try {
    return parseShard(text);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** What --replay and --rerun-failed take from the earlier run: the checks, the seed, the target. */
interface Earlier {
  only?: string[];
  exact?: ReadonlySet<string>;
  seed?: number;
  runs?: number;
  baseUrl?: string;
  replay?: Record<string, { seed: number; path?: string }>;
}

function earlierRun(values: Values): Earlier {
  if (values.replay !== undefined && values['rerun-failed'] !== undefined)
    throw new UsageError('--replay and --rerun-failed each choose the checks: give one of them');
  if (values.replay !== undefined) {
    const detail = readDetail(values.replay);
    const replay: Record<string, { seed: number; path?: string }> = {};
    for (const p of [...detail.properties, ...detail.failures.flatMap((f) => (f.property === undefined ? [] : [f.property]))]) {
      replay[p.name] = { seed: p.seed, ...(p.failed && p.path !== undefined ? { path: p.path } : {}) };
    }
    return { only: [detail.id], seed: detail.run.seed, baseUrl: detail.run.baseUrl, replay };
  }
  if (values['rerun-failed'] !== undefined) {
    const rerun = readRerun(values['rerun-failed']);
    return { only: rerun.ids, exact: new Set(rerun.ids), seed: rerun.seed, runs: rerun.runs, baseUrl: rerun.baseUrl };
  }
  return {};
}

/** The checks, seed and gate a run's options choose (the target is read later: --list needs none). */
async function selectionOf(values: Values): Promise<{ selection: Selection; loaded: LoadedChecks }> {
  const earlier = earlierRun(values);
  const only = earlier.only ?? parseSelectors(values.only);
  const skip = parseSelectors(values.skip);
  const seed =
    values.seed !== undefined || earlier.seed === undefined
      ? integer('seed', values.seed, Math.floor(Math.random() * 2 ** 31), -(2 ** 31), 2 ** 31 - 1)
      : earlier.seed;
  const runs = integer('runs', values.runs, earlier.runs ?? 50, 1, 100_000);
  const shard = shardOf(values.shard);
  const reporters = (values.reporter ?? [])
    .flatMap((r) => r.split(','))
    .map((r) => r.trim())
    .filter((r) => r !== '');
  for (const r of reporters)
    if (r !== 'github' && r !== 'console') throw new UsageError(`--reporter takes github or console, got ${JSON.stringify(r)}`);
  const loaded = await loadChecks();
  let expected: ExpectedFailures | undefined;
  if (values['expected-failures'] !== undefined)
    expected = readExpectedFailures(values['expected-failures'], {
      checks: new Set(loaded.checks.map((c) => c.id)),
      clauses: new Set(loadClauses().map((c) => c.id)),
    });
  // --rerun-failed names exact ids: "summary/regenerate" must not also select summary/regenerate-id-name.
  const chosen = select(loaded.checks, only, skip).filter((c) => earlier.exact === undefined || earlier.exact.has(c.id));
  const selected = inShard(chosen, shard);
  const brokenSelected = loaded.broken.filter((b) => only.length === 0 || only.some((s) => b.id.startsWith(s)));
  const maxFailures = values['max-failures'] === undefined ? undefined : integer('max-failures', values['max-failures'], 0, 1, 100_000);
  const selection: Selection = {
    only,
    skip,
    seed,
    runs,
    reporters,
    selected,
    brokenSelected,
    failOn: parseFailOn(values['fail-on']),
    minCoverage: parsePercent(values['min-coverage']),
    timeoutMs: integer('timeout', values.timeout, 15_000, 100, 3_600_000),
    jobs: integer('jobs', values.jobs, 1, 1, 32),
    ...(shard === undefined ? {} : { shard }),
    ...(earlier.replay === undefined ? {} : { replay: earlier.replay }),
    ...(earlier.baseUrl === undefined ? {} : { baseFromReport: earlier.baseUrl }),
    ...(expected === undefined ? {} : { expected }),
    ...(maxFailures === undefined ? {} : { maxFailures }),
    ...(values['write-expected-failures'] === undefined ? {} : { writeExpected: values['write-expected-failures'] }),
    allChecks: loaded.checks,
  };
  return { selection, loaded };
}

/** A selection of no check is bad usage: a gate that checks nothing must not pass. Says what selected nothing. */
function noCheckSelected(selection: Selection, total: number): UsageError {
  const { only, skip, shard } = selection;
  const how = [
    only.length > 0 ? `--only ${only.join(',')}` : '',
    skip.length > 0 ? `--skip ${skip.join(',')}` : '',
    shard === undefined ? '' : `--shard ${shard.index}/${shard.count}`,
  ]
    .filter(Boolean)
    .join(' with ');
  return new UsageError(`${how || 'the selection'} selects no check of the ${total} (see --list for their ids)`);
}

/** --list: the selected checks, their levels, needs and clauses, and how each selector was read. */
function listSelected(selection: Selection, loaded: LoadedChecks): number {
  const ordered = orderChecks(selection.selected);
  for (const c of ordered) {
    process.stdout.write(`${c.id.padEnd(48)} ${c.level.padEnd(11)} ${(c.needs.join(',') || '-').padEnd(28)} ${c.clauses.join(' ')}\n`);
  }
  for (const b of selection.brokenSelected) process.stdout.write(`${b.id.padEnd(48)} BROKEN      ${b.error.split('\n')[0]}\n`);
  const clauses = new Set(ordered.flatMap((c) => c.clauses));
  const shard = selection.shard;
  process.stdout.write(
    `\n${ordered.length} checks over ${clauses.size} clauses${shard === undefined ? '' : ` (shard ${shard.index}/${shard.count})`}\n`,
  );
  // How each selector was read: check ids, clause ids, section headings of API.md (runner/select.ts).
  for (const [flag, list] of [
    ['--only', selection.only],
    ['--skip', selection.skip],
  ] as const)
    for (const s of list) process.stdout.write(`${flag} ${describeSelector(s, loaded.checks)}\n`);
  return EXIT.conformant;
}

export async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'merge') return merge(argv.slice(1));
  const parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  const { positionals } = parsed;
  if (parsed.values.help === true || parsed.values['help-all'] === true) {
    process.stdout.write(parsed.values['help-all'] === true ? usage() : shortUsage());
    return EXIT.conformant;
  }
  // The config file holds any option; a flag given on the command line wins over it.
  const config = readConfig(parsed.values.config, OPTIONS);
  const values = { ...config.values, ...parsed.values } as Values;
  if (values.version === true) {
    process.stdout.write(`${SUITE_NAME} ${SUITE_VERSION}\n`);
    return EXIT.conformant;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])} (the only subcommand is merge)`);
  const { selection, loaded } = await selectionOf(values);
  if (values['rerun-failed'] !== undefined && selection.only.length === 0) {
    process.stdout.write(`--rerun-failed: nothing FAILed or ERRORed in ${values['rerun-failed']}; nothing to run\n`);
    return EXIT.conformant;
  }
  if (selection.selected.length === 0 && selection.brokenSelected.length === 0) throw noCheckSelected(selection, loaded.checks.length);
  if (values.list === true) return listSelected(selection, loaded);
  return runSuite(values, selection);
}

/** The oldest Node the suite is built for (import.meta.main arrived in 24.2). */
const MIN_NODE = [24, 2] as const;

export function nodeTooOld(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  return major < MIN_NODE[0] || (major === MIN_NODE[0] && minor < MIN_NODE[1]);
}

// import.meta.main is undefined before Node 24.2, so an older Node would do nothing at all;
// the process.argv comparison catches that case and says why instead.
const invokedDirectly = (import.meta.main as boolean | undefined) ?? isEntryScript(process.argv[1]);

function isEntryScript(argv1: string | undefined): boolean {
  if (argv1 === undefined) return false;
  try {
    return realpathSync(argv1) === realpathSync(import.meta.filename); // the npx bin is a symlink
  } catch {
    return false;
  }
}
if (invokedDirectly && nodeTooOld(process.version)) {
  process.stderr.write(`conformance: Node ${MIN_NODE.join('.')} or later is needed; this is ${process.version}\n`);
  process.exitCode = EXIT.unreachable;
} else if (invokedDirectly) {
  runCommandLine(process.argv.slice(2));
}

/**
 * Runs the command line and sets the exit code: usage errors print one line and the hint (exit 2), a
 * harness failure its stack (exit 3: the run could not go on; cli/exit-codes.ts). The release bundle's entry calls it (its own Node check comes first).
 */
export function runCommandLine(argv: string[]): void {
  // A reader that closes the pipe early (`--list | head`) has all it wanted: stop quietly, as other
  // command-line tools do, instead of printing the write's EPIPE trace.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(process.exitCode ?? EXIT.conformant);
  });
  main(argv).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') === true) {
        // One line and the hint: the whole text would bury the message (--help shows it).
        // (node's parseArgs adds a sentence on positionals starting with '-': not what went wrong here.)
        const message = (err as Error).message.split('\n')[0]!.replace(/\. To specify a positional argument.*$/, '');
        process.stderr.write(`conformance: ${message}\n${usageHint()}\n`);
        process.exitCode = EXIT.usage;
        return;
      }
      process.stderr.write(`conformance: the harness failed: ${(err as Error).stack ?? String(err)}\n`);
      process.exitCode = EXIT.unreachable;
    },
  );
}
