/**
 * A run of the suite against a target, once cli.ts has read the command line
 * and the selection: reach the target (exit 3 when it cannot be reached or the
 * session cannot open), run the checks (stopping after --max-failures), clean
 * up, write the reports, and give the exit code the expected failures and the
 * gate leave (cli/exit-codes.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadClauses } from '../catalog.ts';
import { ConsoleReporter } from '../reporters/console.ts';
import type { Writer } from '../reporters/console.ts';
import { githubAnnotations } from '../reporters/github.ts';
import { dropRequestBodies, writeRequestBodies } from '../reporters/bodies.ts';
import { detailPath } from '../reporters/json.ts';
import { skipTable } from '../reporters/skips.ts';
import { guardInterrupts } from '../runner/cleanup.ts';
import { redactReport } from '../runner/redact.ts';
import type { Check } from '../harness/check.ts';
import type { CheckResult, RunReport } from '../runner/result.ts';
import { clauseRows, coverage, isFailing } from '../runner/result.ts';
import { brokenResult, runChecks } from '../runner/run.ts';
import { openSession } from '../runner/session.ts';
import type { ProgressEvent, Session } from '../runner/session-types.ts';
import { SetupError } from '../runner/setup-error.ts';
import type { Shard } from '../runner/shard.ts';
import { cleanupLine } from '../harness/ledger.ts';
import type { CleanupSummary } from '../harness/ledger.ts';
import { Secrets } from '../harness/secrets.ts';
import type { FailOn } from '../gate.ts';
import { UsageError, applyTls, gateReasons, invocation, waitForTarget } from '../gate.ts';
import { SUITE_NAME, SUITE_VERSION, USER_AGENT } from '../version.ts';
import { EXIT } from './exit-codes.ts';
import { entryFor, expectedLines, expectedMeta, judge, writeExpectedFailures } from './expected-failures.ts';
import type { ExpectedFailures } from './expected-failures.ts';
import { integer, url } from './options.ts';
import type { Values } from './options.ts';
import { writeReports } from './reports.ts';

/** What cli.ts read of the selection and the gate. */
export interface Selection {
  only: string[];
  skip: string[];
  seed: number;
  runs: number;
  timeoutMs: number;
  jobs: number;
  shard?: Shard;
  reporters: string[];
  failOn: FailOn[];
  minCoverage: number | undefined;
  selected: Check[];
  brokenSelected: Array<{ id: string; file: string; error: string }>;
  allChecks: readonly Check[];
  replay?: Record<string, { seed: number; path?: string }>;
  /** The target of the report --replay or --rerun-failed read (used when no --base-url is given). */
  baseFromReport?: string;
  expected?: ExpectedFailures;
  maxFailures?: number;
  writeExpected?: string;
}

/** The target and the credentials, from the options and the environment. */
interface Target {
  baseUrl: string;
  controlUrl?: string;
  controlSecret?: string;
  token?: string;
  tokensFile?: string;
  publicWebhookUrl?: string;
}

function targetOf(values: Values, selection: Selection, env: NodeJS.ProcessEnv): Target {
  const baseUrlText = values['base-url'] ?? (env.MAS_BASE_URL || undefined) ?? selection.baseFromReport;
  if (baseUrlText === undefined) throw new UsageError('--base-url is required (or MAS_BASE_URL)');
  const controlText = values['control-url'] ?? env.MAS_CONTROL_URL;
  const controlSecret = values['control-secret'] ?? (env.MAS_CONTROL_SECRET || undefined);
  const token = values.token ?? (env.MAS_TOKEN || undefined);
  const tokensFile = values.tokens ?? (env.MAS_TOKENS_FILE || undefined);
  const publicWebhookText = values['public-webhook-url'] ?? (env.MAS_PUBLIC_WEBHOOK_URL || undefined);
  const controlUrl = controlText === undefined || controlText === '' ? undefined : url('control-url', controlText);
  if (controlUrl !== undefined && controlSecret === undefined)
    throw new UsageError('--control-url needs --control-secret (or MAS_CONTROL_SECRET)');
  if (controlUrl === undefined && controlSecret !== undefined && values['control-secret'] !== undefined)
    throw new UsageError('--control-secret needs --control-url');
  return {
    baseUrl: url('base-url', baseUrlText),
    ...(controlUrl === undefined ? {} : { controlUrl }),
    ...(controlSecret === undefined ? {} : { controlSecret }),
    ...(token === undefined ? {} : { token }),
    ...(tokensFile === undefined ? {} : { tokensFile }),
    ...(publicWebhookText === undefined ? {} : { publicWebhookUrl: url('public-webhook-url', publicWebhookText) }),
  };
}

/** A writer that redacts the operator's secrets from everything printed. */
function redactingWriter(out: NodeJS.WriteStream, secrets: Secrets): Writer {
  return {
    write: (text: string) => out.write(secrets.redact(text)),
    ...(out.isTTY === undefined ? {} : { isTTY: out.isTTY }),
    ...(out.columns === undefined ? {} : { columns: out.columns }),
  };
}

/** The command line that runs one check again (printed after a failure and kept in each report). */
function replayHint(values: Values, selection: Selection, target: Target): (id: string) => string {
  return (id) => {
    const command = invocation();
    // run-reference.ts starts a gateway of its own each time: its hint names no target.
    const parts = command.includes('conformance:reference') ? [command] : [command, '--base-url', target.baseUrl];
    if (target.controlUrl !== undefined && parts.length > 1)
      parts.push('--control-url', target.controlUrl, '--control-secret "$MAS_CONTROL_SECRET"');
    if (target.token !== undefined) parts.push('--token "$MAS_TOKEN"');
    if (target.tokensFile !== undefined) parts.push('--tokens', target.tokensFile);
    if (values.json !== undefined) parts.push('--replay', join(values.json, detailPath(id)));
    // --seed=N: a negative seed as its own argument would read as an option.
    else parts.push('--only', id, `--seed=${selection.seed}`, '--runs', String(selection.runs));
    return parts.join(' ');
  };
}

/**
 * Why the target cannot be reached, or null when it answers at all (any HTTP status: a wrong answer is
 * the checks' business). --wait-for-target S polls for up to S seconds; without it one try.
 */
async function unreachable(values: Values, baseUrl: string): Promise<string | null> {
  const seconds = values['wait-for-target'] === undefined ? 0 : integer('wait-for-target', values['wait-for-target'], 0, 0, 3600);
  return waitForTarget(baseUrl, seconds, USER_AGENT, { anyStatus: values['wait-for-target'] === undefined });
}

async function open(values: Values, selection: Selection, target: Target, secrets: Secrets, progress: (e: ProgressEvent) => void) {
  const capabilities = values['control-capabilities']
    ?.split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '');
  return openSession(
    {
      ...target,
      ...(capabilities === undefined ? {} : { controlCapabilities: capabilities }),
      seed: selection.seed,
      runs: selection.runs,
      slow: values.slow === true,
      fresh: values.fresh === true,
      ...(values['receiver-host'] === undefined ? {} : { receiverHost: values['receiver-host'] }),
      ...(values['lan-host'] === undefined ? {} : { lanHost: values['lan-host'] }),
      requestTimeoutMs: selection.timeoutMs,
      ...(selection.replay === undefined ? {} : { replay: selection.replay }),
      replayHint: replayHint(values, selection, target),
      secrets,
    },
    progress,
  );
}

/** The reason of the checks --max-failures left out (dropped from the report: it shows what ran). */
const NOT_RUN = 'the run stopped at --max-failures before this check';

/** Runs the checks, stopping after --max-failures unexpected FAILs or ERRORs; cleans up at the end or on Ctrl+C. */
async function runAndCleanUp(
  values: Values,
  selection: Selection,
  session: Session,
  reporter: ConsoleReporter,
  stdout: Writer,
): Promise<{ results: CheckResult[]; cleanup: CleanupSummary; stopped: boolean }> {
  // What the run created on the target goes at its end or on Ctrl+C, once (docs/decisions/075).
  let cleaning: Promise<CleanupSummary> | undefined;
  const cleanUp = (interrupted: boolean): Promise<CleanupSummary> =>
    (cleaning ??= session.cleanUp?.({ keep: values.keep === true, interrupted }) ?? Promise.resolve({ kept: false, kinds: [] }));
  const guard = guardInterrupts(
    async () => void stdout.write(`Target: ${cleanupLine(await cleanUp(true))}\n`),
    (text) => process.stderr.write(text),
  );
  const stop = new AbortController();
  let failures = 0;
  const progress = (e: ProgressEvent): void => {
    reporter.handle(e);
    const counts =
      e.type === 'end' &&
      isFailing(e.result.outcome) &&
      (selection.expected === undefined || entryFor(selection.expected, e.result) === undefined);
    if (counts && selection.maxFailures !== undefined && ++failures >= selection.maxFailures && !stop.signal.aborted) stop.abort(NOT_RUN);
  };
  try {
    const results = await runChecks(
      selection.selected,
      session,
      {
        retry: values['no-retry'] !== true,
        reset: values['no-reset'] !== true,
        jobs: selection.jobs,
        recorderAlone: values['recorder-alone'] === true,
        signal: AbortSignal.any([guard.signal, stop.signal]),
      },
      progress,
    );
    const cleanup = await cleanUp(false);
    const stopped = stop.signal.aborted && !guard.signal.aborted;
    return { results: stopped ? results.filter((r) => r.skipReason !== NOT_RUN) : results, cleanup, stopped };
  } finally {
    guard.dispose();
    await session.close();
  }
}

function reportOf(
  values: Values,
  selection: Selection,
  target: Target,
  session: Session,
  run: { results: CheckResult[]; cleanup: CleanupSummary; startedAt: string },
  secrets: Secrets,
): RunReport {
  const { only, skip, shard } = selection;
  return redactReport(
    {
      meta: {
        suite: SUITE_NAME,
        suiteVersion: SUITE_VERSION,
        target: {
          baseUrl: target.baseUrl,
          ...(target.controlUrl === undefined ? {} : { controlUrl: target.controlUrl }),
          ...(session.capabilities === undefined ? {} : { capabilities: session.capabilities }),
        },
        startedAt: run.startedAt,
        finishedAt: new Date().toISOString(),
        seed: selection.seed,
        runs: selection.runs,
        slow: values.slow === true,
        ...(shard === undefined ? {} : { shard: `${shard.index}/${shard.count}` }),
        ...(only.length === 0 ? {} : { only }),
        ...(skip.length === 0 ? {} : { skip }),
        placeholders: session.secrets.placeholders(),
        nodeVersion: process.version,
        cleanup: run.cleanup,
        ...(selection.expected === undefined ? {} : { expectedFailures: expectedMeta(selection.expected, run.results) }),
      },
      results: run.results,
      suite: selection.allChecks.map((c) => ({ id: c.id, clauses: [...c.clauses] })),
    },
    secrets,
  );
}

export async function runSuite(values: Values, selection: Selection): Promise<number> {
  const target = targetOf(values, selection, process.env);
  // Everything printed goes through the redactor; the values the checks read never do.
  const secrets = new Secrets();
  if (target.controlSecret !== undefined) secrets.add(target.controlSecret, '$MAS_CONTROL_SECRET');
  if (target.token !== undefined) secrets.add(target.token, '$MAS_TOKEN');
  const stdout = redactingWriter(process.stdout, secrets);
  const reporter = new ConsoleReporter(stdout);
  const startedAt = new Date().toISOString();
  applyTls({ ...(values.insecure === true ? { insecure: true } : {}), ...(values.ca === undefined ? {} : { ca: values.ca }) });
  const { selected, shard, seed } = selection;
  process.stdout.write(
    `${SUITE_NAME} ${SUITE_VERSION}: ${selected.length} check${selected.length === 1 ? '' : 's'} against ${target.baseUrl}, seed ${seed}${shard === undefined ? '' : `, shard ${shard.index}/${shard.count}`}\n`,
  );
  const why = await unreachable(values, target.baseUrl);
  if (why !== null) {
    process.stderr.write(`conformance: the target could not be reached: ${secrets.redact(why)}\n`);
    return EXIT.unreachable;
  }
  let session: Session;
  try {
    session = await open(values, selection, target, secrets, reporter.handle);
  } catch (err) {
    if (!(err instanceof SetupError)) throw err;
    process.stderr.write(`conformance: the run could not start: ${secrets.redact(err.message)}\n`);
    return EXIT.unreachable;
  }
  const run = await runAndCleanUp(values, selection, session, reporter, stdout);
  run.results.push(...selection.brokenSelected.map(brokenResult));
  const redacted = reportOf(values, selection, target, session, { ...run, startedAt }, secrets);
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
  return verdict(values, selection, { report, files, cleanup: run.cleanup, stopped: run.stopped }, { stdout, reporter, target });
}

/** The summary, the expected failures apart, and the exit code. */
function verdict(
  values: Values,
  selection: Selection,
  run: { report: RunReport; files: string[]; cleanup: CleanupSummary; stopped: boolean },
  out: { stdout: Writer; reporter: ConsoleReporter; target: Target },
): number {
  const { stdout } = out;
  const results = run.report.results;
  const judged = judge(selection.expected, results);
  const skips = skipTable(results);
  if (skips !== '') stdout.write(`\n${skips}\n`);
  const cov = coverage(clauseRows(loadClauses(), run.report));
  // The summary details the failures that fail the run; the expected ones are listed apart below it.
  const listedIds = new Set(judged.expected.map((x) => x.result.id));
  out.reporter.summary(results, cov, run.files, listedIds);
  stdout.write(`Target: ${cleanupLine(run.cleanup)}\n`);
  if (selection.expected !== undefined) for (const line of expectedLines(selection.expected, judged)) stdout.write(`${line}\n`);
  if (run.stopped)
    stdout.write(
      `Stopped after ${selection.maxFailures} unexpected failures (--max-failures): ${results.length} of ${selection.selected.length} checks ran\n`,
    );
  if (selection.writeExpected !== undefined) {
    const n = writeExpectedFailures(
      selection.writeExpected,
      results,
      `Expected failures of ${SUITE_NAME} ${SUITE_VERSION} against ${out.target.baseUrl}, seed ${selection.seed}`,
    );
    stdout.write(`Expected failures: ${n} written to ${selection.writeExpected}\n`);
  }
  if (selection.reporters.includes('github')) stdout.write(githubAnnotations(results, cov));
  if (judged.unexpected.length > 0) stdout.write(`Replay one check: ${replayHint(values, selection, out.target)('<check id>')}\n`);
  const reasons = gateReasons(results, cov, { failOn: selection.failOn, minCoverage: selection.minCoverage });
  for (const r of reasons) stdout.write(`Gate: ${r}\n`);
  return judged.unexpected.length > 0 || judged.stale.length > 0 || reasons.length > 0 ? EXIT.broken : EXIT.conformant;
}
