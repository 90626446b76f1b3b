#!/usr/bin/env node
/**
 * The conformance suite's command line. Runs the checks against any
 * implementation of API.md by base URL and reports per clause.
 *
 * Exit codes: 0 nothing FAILed or ERRORed; 1 a check FAILed or ERRORed, or the
 * run could not start; 2 bad usage.
 */
import { writeFileSync, mkdirSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadClauses } from './catalog.ts';
import { ConsoleReporter } from './reporters/console.ts';
import { htmlReport } from './reporters/html.ts';
import { junitReport } from './reporters/junit.ts';
import { detailPath, readDetail, readJsonReport, writeJsonReport } from './reporters/json.ts';
import { markdownReport } from './reporters/markdown.ts';
import { skipTable } from './reporters/skips.ts';
import { mergeReports } from './runner/merge.ts';
import { loadChecks } from './runner/registry.ts';
import type { RunReport } from './runner/result.ts';
import { clauseRows, coverage, isFailing } from './runner/result.ts';
import { brokenResult, orderChecks, runChecks } from './runner/run.ts';
import { openSession } from './runner/session.ts';
import { SetupError } from './runner/setup-error.ts';
import { describeSelector, parseSelectors, select } from './runner/select.ts';
import { inShard, parseShard } from './runner/shard.ts';
import { redactReport } from './runner/redact.ts';
import { guardInterrupts } from './runner/cleanup.ts';
import { cleanupLine } from './harness/ledger.ts';
import type { CleanupSummary } from './harness/ledger.ts';
import { Secrets } from './harness/secrets.ts';
import type { Writer } from './reporters/console.ts';
import type { Shard } from './runner/shard.ts';
import { SUITE_NAME, SUITE_VERSION, USER_AGENT } from './version.ts';
import {
  UsageError,
  applyTls,
  gateReasons,
  invocation,
  parseFailOn,
  parsePercent,
  readConfig,
  waitForTarget as waitForTarget_,
} from './gate.ts';
import { githubAnnotations } from './reporters/github.ts';
import { dropRequestBodies, writeRequestBodies } from './reporters/bodies.ts';

/**
 * --help: the common options on one screen (at most 24 lines); the rest is
 * --help-all (usage). Both name the command the suite was started with.
 */
function shortUsage(prefix: string = invocation()): string {
  return `Usage: ${prefix} --base-url URL [options]
Runs the Meeting Automation Service conformance suite against a target.

  --base-url URL          the API under test (MAS_BASE_URL)
  --control-url URL       its Control API, with --control-secret S (MAS_CONTROL_URL, _SECRET)
  --token T               an API token, when no Control API mints tokens (MAS_TOKEN)
  --tokens FILE           tokens of other scope sets, for a target without a Control API
  --only SEL, --skip SEL  check ids or prefixes (meetings/), clause ids or prefixes
                          (auth.), or spec section headings ("Endpoints > Jobs")
  --list                  print what is selected and exit
  --shard K/N, --jobs N   a deterministic part; up to N independent checks at once
  --seed N                the run seed (random by default, always printed)
  --json DIR              index.json, one detail file per check, request bodies
  --junit F, --html F, --md F
                          JUnit XML, a self-contained HTML page, Markdown
  --reporter github       GitHub workflow annotations after the run
  --fail-on LIST          also fail on skipped, flaky, non_strict, informational
  --help-all              every option; --version

Exit status: 0 no check FAILed or ERRORed, 1 otherwise, 2 bad usage.
Merge shard reports: ${prefix} merge DIR... --json OUT
`;
}

/** The one-line hint after a usage error. */
function usageHint(prefix: string = invocation()): string {
  return `run with --help for usage: ${prefix} --help`;
}

/** --help-all: every option. */
export function usage(prefix: string = invocation()): string {
  return `Usage:
  ${prefix} --base-url URL [options]
  ${prefix} merge DIR... --json OUT [--junit FILE] [--html FILE] [--md FILE]

Runs the Meeting Automation Service conformance suite against a target and
reports per clause of conformance/clauses.json.

Target:
  --base-url URL          the API under test, e.g. http://127.0.0.1:8420 (MAS_BASE_URL)
  --control-url URL       its Control API (CONTROL.md): settings, tokens, fixtures, reset (MAS_CONTROL_URL)
  --control-secret S      the Control API secret (MAS_CONTROL_SECRET)
  --control-capabilities LIST
                          use only these of its capabilities (comma-separated), e.g. to
                          see what a target offering fewer would have checked
  --token T               an API token, used when no Control API mints tokens (MAS_TOKEN)
  --tokens FILE           tokens of other scope sets, origins and kinds, for a target
                          without a Control API (MAS_TOKENS_FILE; format: conformance/README.md)
  --receiver-host H       address of this machine the target can reach for webhook
                          deliveries (default: loopback, for a target on this machine)
  --lan-host H            an address of the target's machine the LAN checks may reach; without
                          it the suite sends traffic to loopback addresses only

Selection:
  --only SEL[,SEL...]     check ids or prefixes (meetings/, auth/scope-matrix), clause-id
                          prefixes (auth., search.q) or section headings of API.md
                          ("Endpoints > Jobs", "Job states"; any case); repeatable
  --skip SEL[,SEL...]     the same, left out (wins over --only)
  --shard K/N             run the K-th of N deterministic parts (by check id)
  --slow                  include slow checks (webhook retry schedules, wait caps: minutes)
  --fresh                 the target was just started as a fresh installation (empty data
                          folder, default settings): enables the fresh-install checks
  --list                  print the selected checks and exit (no target needed)

Properties (fast-check):
  --seed N                run seed (default: random; printed, and in every report)
  --runs N                runs per property (default 50)
  --replay FILE           re-run the one check of a JSON detail file (reports/x/checks/...json)
                          with its seed and counterexample path

Reports:
  --json DIR              index.json + one detail file per check (full exchanges)
  --junit FILE            JUnit XML
  --html FILE             a self-contained HTML report
  --md FILE               Markdown (e.g. --md "$GITHUB_STEP_SUMMARY")

Gate:
  --fail-on LIST          also fail the run (exit 1) on these outcomes: skipped, flaky,
                          non_strict, informational (comma-separated; repeatable)
  --min-coverage P        fail the run (exit 1) when fewer than P % of the checkable clauses
                          were exercised
  --wait-for-target S     poll GET /health for up to S seconds before starting
  --reporter NAME         also print github (workflow annotations) after the run; repeatable
  --config FILE           options as JSON (default: ./mas-conformance.config.json when present);
                          keys are option names ("base-url" or "baseUrl"); flags win

TLS (an https:// target):
  --ca FILE               trust this PEM certificate too (e.g. the LAN listener's self-signed one)
  --insecure              do not verify the target's certificate

Other:
  --timeout MS            per-request timeout (default 15000)
  --jobs N                run up to N checks at once among those that touch only their own
                          target state (Check.touches), at most one of them recording; the
                          rest run alone (default 1)
  --recorder-alone        with --jobs: run the checks that record alone too (for a target whose
                          recording slows or changes other work; the earlier --jobs schedule)
  --no-retry              do not run a FAILed or ERRORed check a second time
  --no-reset              never reset the target between checks
  --keep                  leave what the run created on the target (meetings, webhooks, ...);
                          by default it is removed at the end and on Ctrl+C, as the tokens allow
  --public-webhook-url U  where webhooks that must point at a public address point
                          (MAS_PUBLIC_WEBHOOK_URL; default https://[2d00::1]/mas-conformance-webhook,
                          an address no one holds: docs/decisions/075)
  -h, --help              the common options
  --help-all              this text
  --version               print the suite's name and version

Exit status: 0 when no check FAILed or ERRORed (PASS, NON_STRICT, INFORMATIONAL,
SKIPPED and FLAKY do not fail a run unless --fail-on names them) and the gate
holds; 1 otherwise or when the run cannot start; 2 for bad usage, or when
--only/--skip select no check.
`;
}

export const USAGE = usage('npm run conformance --');

const OPTIONS = {
  'base-url': { type: 'string' },
  'control-url': { type: 'string' },
  'control-secret': { type: 'string' },
  token: { type: 'string' },
  tokens: { type: 'string' },
  'control-capabilities': { type: 'string' },
  'receiver-host': { type: 'string' },
  'lan-host': { type: 'string' },
  'fail-on': { type: 'string', multiple: true },
  'min-coverage': { type: 'string' },
  'wait-for-target': { type: 'string' },
  reporter: { type: 'string', multiple: true },
  config: { type: 'string' },
  jobs: { type: 'string' },
  ca: { type: 'string' },
  insecure: { type: 'boolean' },
  only: { type: 'string', multiple: true },
  skip: { type: 'string', multiple: true },
  shard: { type: 'string' },
  slow: { type: 'boolean' },
  fresh: { type: 'boolean' },
  list: { type: 'boolean' },
  seed: { type: 'string' },
  runs: { type: 'string' },
  replay: { type: 'string' },
  json: { type: 'string' },
  junit: { type: 'string' },
  html: { type: 'string' },
  md: { type: 'string' },
  timeout: { type: 'string' },
  'no-retry': { type: 'boolean' },
  'no-reset': { type: 'boolean' },
  'recorder-alone': { type: 'boolean' },
  keep: { type: 'boolean' },
  'public-webhook-url': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  'help-all': { type: 'boolean' },
  version: { type: 'boolean' },
} as const;

/** A writer that redacts the operator's secrets from everything printed. */
function redactingWriter(out: NodeJS.WriteStream, secrets: Secrets): Writer {
  return {
    write: (text: string) => out.write(secrets.redact(text)),
    ...(out.isTTY === undefined ? {} : { isTTY: out.isTTY }),
    ...(out.columns === undefined ? {} : { columns: out.columns }),
  };
}

function integer(name: string, text: string | undefined, fallback: number, min: number, max: number): number {
  if (text === undefined) return fallback;
  if (!/^-?\d+$/.test(text.trim())) throw new UsageError(`--${name} must be an integer, got ${JSON.stringify(text)}`);
  const n = Number(text);
  if (n < min || n > max) throw new UsageError(`--${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function url(name: string, text: string): string {
  try {
    const u = new URL(text);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
    return text.replace(/\/+$/, '');
  } catch {
    throw new UsageError(`--${name} must be an http:// or https:// URL, got ${JSON.stringify(text)}`);
  }
}

function writeReports(report: RunReport, values: { json?: string; junit?: string; html?: string; md?: string }): string[] {
  const catalog = loadClauses();
  const files: string[] = [];
  const write = (file: string, text: string): void => {
    mkdirSync(dirname(resolve(file)), { recursive: true });
    writeFileSync(file, text);
    files.push(file);
  };
  if (values.json !== undefined) {
    writeJsonReport(values.json, report, catalog);
    files.push(join(values.json, 'index.json'));
  }
  if (values.junit !== undefined) write(values.junit, junitReport(report, catalog));
  if (values.html !== undefined) write(values.html, htmlReport(report, catalog));
  if (values.md !== undefined) write(values.md, markdownReport(report, catalog));
  return files;
}

async function merge(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      json: { type: 'string' },
      junit: { type: 'string' },
      html: { type: 'string' },
      md: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help === true) {
    process.stdout.write(`Usage: ${invocation()} merge DIR... [--json DIR] [--junit FILE] [--html FILE] [--md FILE]\n`);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError('merge needs at least one report folder (written with --json)');
  if (values.json === undefined && values.junit === undefined && values.html === undefined && values.md === undefined) {
    throw new UsageError('merge needs an output: --json DIR, --junit FILE, --html FILE or --md FILE');
  }
  const merged = mergeReports(positionals.map((d) => readJsonReport(d)));
  const files = writeReports(merged, values);
  const rows = clauseRows(loadClauses(), merged);
  const cov = coverage(rows);
  const failed = merged.results.filter((r) => isFailing(r.outcome)).length;
  process.stdout.write(
    `Merged ${positionals.length} reports: ${merged.results.length} checks, ${failed} failed or errored; clauses ${cov.covered}/${cov.checkable} covered, ${cov.exercised} exercised.\n`,
  );
  for (const f of files) process.stdout.write(`Report: ${f}\n`);
  return failed > 0 ? 1 : 0;
}

export async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'merge') return merge(argv.slice(1));
  const parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  const { positionals } = parsed;
  if (parsed.values.help === true || parsed.values['help-all'] === true) {
    process.stdout.write(parsed.values['help-all'] === true ? usage() : shortUsage());
    return 0;
  }
  // The config file holds any option; a flag given on the command line wins over it.
  const config = readConfig(parsed.values.config, OPTIONS);
  const values = { ...config.values, ...parsed.values } as typeof parsed.values;
  if (values.version === true) {
    process.stdout.write(`${SUITE_NAME} ${SUITE_VERSION}\n`);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])} (the only subcommand is merge)`);
  const env = process.env;

  let only = parseSelectors(values.only);
  const skip = parseSelectors(values.skip);
  let seed = integer('seed', values.seed, Math.floor(Math.random() * 2 ** 31), -(2 ** 31), 2 ** 31 - 1);
  const runs = integer('runs', values.runs, 50, 1, 100_000);
  const timeout = integer('timeout', values.timeout, 15_000, 100, 3_600_000);
  const jobs = integer('jobs', values.jobs, 1, 1, 32);
  let shard: Shard | undefined;
  if (values.shard !== undefined) {
    try {
      shard = parseShard(values.shard);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }

  let replay: Record<string, { seed: number; path?: string }> | undefined;
  let baseFromReplay: string | undefined;
  if (values.replay !== undefined) {
    const detail = readDetail(values.replay);
    only = [detail.id];
    seed = detail.run.seed;
    baseFromReplay = detail.run.baseUrl;
    replay = {};
    for (const p of [...detail.properties, ...detail.failures.flatMap((f) => (f.property === undefined ? [] : [f.property]))]) {
      replay[p.name] = { seed: p.seed, ...(p.failed && p.path !== undefined ? { path: p.path } : {}) };
    }
  }

  const failOn = parseFailOn(values['fail-on']);
  const minCoverage = parsePercent(values['min-coverage']);
  const waitForTarget =
    values['wait-for-target'] === undefined ? undefined : integer('wait-for-target', values['wait-for-target'], 0, 0, 3600);
  const reporters = (values.reporter ?? [])
    .flatMap((r) => r.split(','))
    .map((r) => r.trim())
    .filter((r) => r !== '');
  for (const r of reporters)
    if (r !== 'github' && r !== 'console') throw new UsageError(`--reporter takes github or console, got ${JSON.stringify(r)}`);

  const loaded = await loadChecks();
  const selected = inShard(select(loaded.checks, only, skip), shard);
  const brokenSelected = loaded.broken.filter((b) => only.length === 0 || only.some((s) => b.id.startsWith(s)));
  if (selected.length === 0 && brokenSelected.length === 0) {
    // A gate that checks nothing must not pass: say what selected nothing.
    const how = [
      only.length > 0 ? `--only ${only.join(',')}` : '',
      skip.length > 0 ? `--skip ${skip.join(',')}` : '',
      shard === undefined ? '' : `--shard ${shard.index}/${shard.count}`,
    ]
      .filter(Boolean)
      .join(' with ');
    throw new UsageError(`${how || 'the selection'} selects no check of the ${loaded.checks.length} (see --list for their ids)`);
  }

  if (values.list === true) {
    const ordered = orderChecks(selected);
    for (const c of ordered) {
      process.stdout.write(`${c.id.padEnd(48)} ${c.level.padEnd(11)} ${(c.needs.join(',') || '-').padEnd(28)} ${c.clauses.join(' ')}\n`);
    }
    for (const b of brokenSelected) process.stdout.write(`${b.id.padEnd(48)} BROKEN      ${b.error.split('\n')[0]}\n`);
    const clauses = new Set(ordered.flatMap((c) => c.clauses));
    process.stdout.write(
      `\n${ordered.length} checks over ${clauses.size} clauses${shard === undefined ? '' : ` (shard ${shard.index}/${shard.count})`}\n`,
    );
    // How each selector was read: check ids, clause ids, section headings of API.md (runner/select.ts).
    for (const [flag, list] of [
      ['--only', only],
      ['--skip', skip],
    ] as const)
      for (const s of list) process.stdout.write(`${flag} ${describeSelector(s, loaded.checks)}\n`);
    return 0;
  }

  const baseUrlText = values['base-url'] ?? env.MAS_BASE_URL ?? baseFromReplay;
  if (baseUrlText === undefined) throw new UsageError('--base-url is required (or MAS_BASE_URL)');
  const baseUrl = url('base-url', baseUrlText);
  const controlText = values['control-url'] ?? env.MAS_CONTROL_URL;
  const controlUrl = controlText === undefined || controlText === '' ? undefined : url('control-url', controlText);
  const controlSecret = values['control-secret'] ?? (env.MAS_CONTROL_SECRET || undefined);
  const token = values.token ?? (env.MAS_TOKEN || undefined);
  const tokensFile = values.tokens ?? (env.MAS_TOKENS_FILE || undefined);
  const publicWebhookText = values['public-webhook-url'] ?? (env.MAS_PUBLIC_WEBHOOK_URL || undefined);
  const publicWebhookUrl = publicWebhookText === undefined ? undefined : url('public-webhook-url', publicWebhookText);
  if (controlUrl !== undefined && controlSecret === undefined)
    throw new UsageError('--control-url needs --control-secret (or MAS_CONTROL_SECRET)');
  if (controlUrl === undefined && controlSecret !== undefined && values['control-secret'] !== undefined)
    throw new UsageError('--control-secret needs --control-url');

  // Everything printed goes through the redactor; the values the checks read never do.
  const secrets = new Secrets();
  if (controlSecret !== undefined) secrets.add(controlSecret, '$MAS_CONTROL_SECRET');
  if (token !== undefined) secrets.add(token, '$MAS_TOKEN');
  const stdout = redactingWriter(process.stdout, secrets);
  const consoleReporter = new ConsoleReporter(stdout);
  const startedAt = new Date().toISOString();
  const userAgent = USER_AGENT;
  applyTls({ ...(values.insecure === true ? { insecure: true } : {}), ...(values.ca === undefined ? {} : { ca: values.ca }) });
  const reportArgs = (id: string): string => {
    const command = invocation();
    // run-reference.ts starts a gateway of its own each time: its hint names no target.
    const parts = command.includes('conformance:reference') ? [command] : [command, '--base-url', baseUrl];
    if (controlUrl !== undefined && parts.length > 1) parts.push('--control-url', controlUrl, '--control-secret "$MAS_CONTROL_SECRET"');
    if (token !== undefined) parts.push('--token "$MAS_TOKEN"');
    if (tokensFile !== undefined) parts.push('--tokens', tokensFile);
    if (values.json !== undefined) parts.push('--replay', join(values.json, detailPath(id)));
    // --seed=N: a negative seed as its own argument would read as an option.
    else parts.push('--only', id, `--seed=${seed}`, '--runs', String(runs));
    return parts.join(' ');
  };
  process.stdout.write(
    `${SUITE_NAME} ${SUITE_VERSION}: ${selected.length} check${selected.length === 1 ? '' : 's'} against ${baseUrl}, seed ${seed}${shard === undefined ? '' : `, shard ${shard.index}/${shard.count}`}\n`,
  );

  if (waitForTarget !== undefined) {
    const why = await waitForTarget_(baseUrl, waitForTarget, userAgent);
    if (why !== null) {
      process.stderr.write(`conformance: ${why}\n`);
      return 1;
    }
  }

  let session;
  try {
    session = await openSession(
      {
        baseUrl,
        ...(controlUrl === undefined ? {} : { controlUrl }),
        ...(controlSecret === undefined ? {} : { controlSecret }),
        ...(token === undefined ? {} : { token }),
        ...(tokensFile === undefined ? {} : { tokensFile }),
        ...(values['control-capabilities'] === undefined
          ? {}
          : {
              controlCapabilities: values['control-capabilities']
                .split(',')
                .map((c) => c.trim())
                .filter((c) => c !== ''),
            }),
        seed,
        runs,
        slow: values.slow === true,
        fresh: values.fresh === true,
        ...(values['receiver-host'] === undefined ? {} : { receiverHost: values['receiver-host'] }),
        ...(values['lan-host'] === undefined ? {} : { lanHost: values['lan-host'] }),
        requestTimeoutMs: timeout,
        ...(replay === undefined ? {} : { replay }),
        replayHint: reportArgs,
        secrets,
        ...(publicWebhookUrl === undefined ? {} : { publicWebhookUrl }),
      },
      consoleReporter.handle,
    );
  } catch (err) {
    if (err instanceof SetupError) {
      process.stderr.write(`conformance: ${secrets.redact(err.message)}\n`);
      return 1;
    }
    throw err;
  }
  let results;
  // What the run created on the target goes at its end or on Ctrl+C, once (docs/decisions/075).
  let cleaning: Promise<CleanupSummary> | undefined;
  const cleanUp = (interrupted: boolean): Promise<CleanupSummary> =>
    (cleaning ??= session.cleanUp?.({ keep: values.keep === true, interrupted }) ?? Promise.resolve({ kept: false, kinds: [] }));
  const guard = guardInterrupts(
    async () => void stdout.write(`Target: ${cleanupLine(await cleanUp(true))}\n`),
    (text) => process.stderr.write(text),
  );
  let cleanup: CleanupSummary;
  try {
    results = await runChecks(
      selected,
      session,
      {
        retry: values['no-retry'] !== true,
        reset: values['no-reset'] !== true,
        jobs,
        recorderAlone: values['recorder-alone'] === true,
        signal: guard.signal,
      },
      consoleReporter.handle,
    );
    cleanup = await cleanUp(false);
  } finally {
    guard.dispose();
    await session.close();
  }
  results.push(...brokenSelected.map(brokenResult));

  const redacted: RunReport = redactReport(
    {
      meta: {
        suite: SUITE_NAME,
        suiteVersion: SUITE_VERSION,
        target: {
          baseUrl,
          ...(controlUrl === undefined ? {} : { controlUrl }),
          ...(session.capabilities === undefined ? {} : { capabilities: session.capabilities }),
        },
        startedAt,
        finishedAt: new Date().toISOString(),
        seed,
        runs,
        slow: values.slow === true,
        ...(shard === undefined ? {} : { shard: `${shard.index}/${shard.count}` }),
        ...(only.length === 0 ? {} : { only }),
        ...(skip.length === 0 ? {} : { skip }),
        placeholders: session.secrets.placeholders(),
        nodeVersion: process.version,
        cleanup,
      },
      results,
      suite: loaded.checks.map((c) => ({ id: c.id, clauses: [...c.clauses] })),
    },
    secrets,
  );
  // A failure's request body its curl line leaves out goes beside the JSON report, the line naming the file.
  const report = values.json === undefined ? dropRequestBodies(redacted) : writeRequestBodies(values.json, redacted);
  const files = writeReports(report, values);
  const tokenUse = session.env.tokenUse;
  if (tokenUse !== undefined && session.env.control?.has('tokens') !== true && tokenUse.rows.size > 0) {
    // Without a Control API: which token unlocked which checks, and which missing ones would unlock more.
    stdout.write(`\nTokens asked for (scopes · origin · kind → where it came from):\n${tokenUse.summary()}\n`);
    if (values.json !== undefined) {
      writeFileSync(join(values.json, 'tokens.json'), `${JSON.stringify(tokenUse.toJSON(), null, 2)}\n`);
      files.push(join(values.json, 'tokens.json'));
    }
  }
  const skips = skipTable(report.results);
  if (skips !== '') stdout.write(`\n${skips}\n`);
  const cov = coverage(clauseRows(loadClauses(), report));
  consoleReporter.summary(report.results, cov, files);
  stdout.write(`Target: ${cleanupLine(cleanup)}\n`);
  if (reporters.includes('github')) stdout.write(githubAnnotations(report.results, cov));
  const failing = results.some((r) => isFailing(r.outcome));
  if (failing) stdout.write(`Replay one check: ${reportArgs('<check id>')}\n`);
  const reasons = gateReasons(results, cov, { failOn, minCoverage });
  for (const r of reasons) stdout.write(`Gate: ${r}\n`);
  return failing || reasons.length > 0 ? 1 : 0;
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
  process.exitCode = 1;
} else if (invokedDirectly) {
  runCommandLine(process.argv.slice(2));
}

/**
 * Runs the command line and sets the exit code: usage errors print the usage (exit 2), a harness
 * failure its stack (exit 1). The release bundle's entry calls it (its own Node check comes first).
 */
export function runCommandLine(argv: string[]): void {
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
        process.exitCode = 2;
        return;
      }
      process.stderr.write(`conformance: the harness failed: ${(err as Error).stack ?? String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
