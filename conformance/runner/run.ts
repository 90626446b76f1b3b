/**
 * Runs checks one after the other against a target.
 *
 * - Preconditions first: a check whose needs the target or the run cannot
 *   meet is SKIPPED with the missing need named; it does not run.
 * - Isolation: when the Control API can reset and mint tokens, the target is
 *   reset before every check, so each check starts from CONTROL.md's reset
 *   state whatever ran before it (which makes shards and replays faithful).
 *   Checks marked order 'first' run before any reset.
 * - A FAIL or ERROR is run once more; a second run that conforms makes the
 *   check FLAKY (both attempts are reported).
 *
 * The session a run opens is session.ts; the preconditions are needs.ts.
 */
import type { Check } from '../harness/check.ts';
import { checkArea } from '../harness/check.ts';
import { CheckContext, PropertyMismatch } from '../harness/context.ts';
import type { Exchange } from '../harness/exchange.ts';
import { ControlError, SkipSignal, StopCheck } from '../harness/signals.ts';
import { missingNeeds } from './needs.ts';
import type { Attempt, CheckResult, Outcome } from './result.ts';
import { isFailing } from './result.ts';
import { controlHttpClient } from './session.ts';
import type { ProgressEvent, RunOptions, Session } from './session-types.ts';

const DEFAULT_CHECK_TIMEOUT_MS = 60_000;

function outcomeOf(check: Check, attempt: Attempt): Outcome {
  if (attempt.error !== undefined) return 'ERROR';
  // A failure graded before a premise gave way stays a failure: the skip only ends the check.
  if (check.level !== 'gap' && attempt.failures.some((f) => f.severity === 'fail')) return 'FAIL';
  if (attempt.skipReason !== undefined) return 'SKIPPED';
  if (check.level === 'gap') return 'INFORMATIONAL';
  if (attempt.failures.length > 0) return 'NON_STRICT';
  return 'PASS';
}

export async function runAttempt(
  check: Check,
  session: Session,
  resetFirst: boolean,
  options: { concurrent?: boolean } = {},
): Promise<Attempt> {
  const env = options.concurrent === true ? { ...session.env } : session.env;
  const ctx = new CheckContext(check, env);
  if (options.concurrent === true) {
    // Beside other checks the shared Control API client cannot know whose exchange it records: this check gets its own.
    const shared = session.env.control;
    const client = session.env.controlClient;
    if (shared !== null && client !== null) {
      env.control = shared.withClient(
        controlHttpClient({
          baseUrl: client.baseUrl,
          secrets: session.env.secrets,
          sink: () => ctx.sink,
          timeoutMs: client.timeoutMs,
          ledger: env.ledger,
        }),
      );
    }
  } else session.setCurrent(ctx);
  const started = Date.now();
  const attempt = ctx.attempt;
  const timeoutMs = check.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  try {
    if (resetFirst) {
      try {
        await env.control!.reset();
      } catch (err) {
        throw new ControlError(
          `could not reset the target before the check: ${(err as Error).message}`,
          err instanceof ControlError ? err.curl : undefined,
        );
      }
    }
    await Promise.race([
      check.run(ctx),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the check did not finish within ${timeoutMs / 1000} s`)), timeoutMs);
      }),
    ]);
    attempt.completed = true;
  } catch (err) {
    if (err instanceof SkipSignal) attempt.skipReason = err.reason;
    else if (err instanceof StopCheck) {
      /* the failure is recorded */
    } else if (err instanceof PropertyMismatch) attempt.failures.push(err.failure);
    else if (err instanceof ControlError) attempt.error = { message: err.message, ...(err.curl === undefined ? {} : { curl: err.curl }) };
    else {
      const e = err as Error;
      attempt.error = { message: e.message ?? String(err), ...(e.stack === undefined ? {} : { stack: e.stack }) };
    }
  } finally {
    clearTimeout(timer);
    if (options.concurrent === true && env.control !== null && env.control !== session.env.control) {
      // No reset follows a check run beside others: the devices it left plugged go now (harness/control.ts).
      await env.control
        .unplugLeftovers()
        .catch((err: unknown) => ctx.note(`could not unplug the devices this check plugged: ${(err as Error).message}`));
    }
    ctx.close();
    if (options.concurrent !== true) session.setCurrent(null);
  }
  if (check.level === 'gap' && attempt.failures.length > 0) {
    // A gap never fails: what was expected elsewhere is kept as an observation.
    for (const f of attempt.failures)
      attempt.observations.push({
        clause: f.clause,
        what: f.what,
        actual: `${f.actual} (expected elsewhere: ${f.expected.join(' or ')})`,
        ...(f.curl === undefined ? {} : { curl: f.curl }),
      });
    attempt.failures = [];
  }
  attempt.durationMs = Date.now() - started;
  attempt.outcome = outcomeOf(check, attempt);
  return attempt;
}

function resultOf(check: Check, attempt: Attempt): CheckResult {
  return {
    id: check.id,
    area: checkArea(check.id),
    clauses: [...check.clauses],
    level: check.level,
    needs: [...check.needs],
    description: check.description,
    requirement: check.requirement,
    ...attempt,
  };
}

function skippedResult(check: Check, reason: string): CheckResult {
  return resultOf(check, {
    outcome: 'SKIPPED',
    startedAt: new Date().toISOString(),
    durationMs: 0,
    completed: false,
    failures: [],
    observations: [],
    notes: [],
    skipReason: reason,
    properties: [],
    exchanges: [],
    exchangesOmitted: 0,
    deliveries: [],
  });
}

export function brokenResult(b: { id: string; file: string; error: string }): CheckResult {
  return {
    id: b.id,
    area: checkArea(b.id),
    clauses: [],
    level: 'requirement',
    needs: [],
    description: `the check file ${b.file} did not load`,
    requirement: '',
    outcome: 'ERROR',
    startedAt: new Date().toISOString(),
    durationMs: 0,
    completed: false,
    failures: [],
    observations: [],
    notes: [],
    error: { message: b.error.split('\n')[0] ?? b.error, stack: b.error },
    properties: [],
    exchanges: [],
    exchangesOmitted: 0,
    deliveries: [],
  };
}

/** Orders checks: 'first' ones, then the rest by id, then 'last' ones. */
export function orderChecks(checks: readonly Check[]): Check[] {
  const rank = (c: Check): number => (c.order === 'first' ? 0 : c.order === 'last' ? 2 : 1);
  return [...checks].sort((a, b) => rank(a) - rank(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Whether a check may run beside others under --jobs (Check.touches; unset: 'global'). */
export function isolationOf(check: Check): 'own' | 'recorder' | 'global' {
  if (check.order !== undefined) return 'global';
  return check.touches ?? 'global';
}

export async function runChecks(
  checks: readonly Check[],
  session: Session,
  options: Pick<RunOptions, 'retry' | 'reset'> & { jobs?: number; recorderAlone?: boolean; signal?: AbortSignal },
  progress: (e: ProgressEvent) => void = () => undefined,
): Promise<CheckResult[]> {
  const env = session.env;
  const receiverState = checks.some((c) => c.needs.includes('receiver')) ? await env.receiver() : null;
  env.receiverHint = receiverState !== null && 'missing' in receiverState ? receiverState.missing : null;
  const resettable = options.reset !== false && env.control !== null && env.control.has('reset') && env.control.has('tokens');
  const ordered = orderChecks(checks);
  const runLog = env.runLog as Exchange[];
  let index = 0;

  // Read when needed, not narrowed: Ctrl+C may come while a check runs.
  const interrupted = (): boolean => options.signal?.aborted === true;
  const runOne = async (check: Check, resetFirst: boolean, concurrent: boolean): Promise<CheckResult> => {
    const i = index++;
    progress({ type: 'start', check, index: i, total: ordered.length });
    const missing =
      missingNeeds(check, env) ??
      ((env.webhooksOff ?? null) !== null && checkArea(check.id) === 'webhooks' && !check.needs.includes('settings')
        ? env.webhooksOff
        : null);
    let result: CheckResult;
    // Ctrl+C: no check starts after it (cli.ts cleans up, then exits).
    // A string reason says why the run stopped (cli/run-suite.ts: --max-failures); Ctrl+C gives none.
    if (interrupted()) {
      const reason: unknown = options.signal?.reason;
      result = skippedResult(check, typeof reason === 'string' ? reason : 'the run was interrupted before this check');
    } else if (missing !== undefined && missing !== null) {
      result = skippedResult(check, missing);
    } else {
      const first = await runAttempt(check, session, resetFirst, { concurrent });
      runLog.push(...first.exchanges.filter((x) => x.channel === 'api'));
      result = resultOf(check, first);
      if (isFailing(first.outcome) && options.retry !== false && !interrupted()) {
        progress({ type: 'retry', check, first: first.outcome });
        const second = await runAttempt(check, session, resetFirst, { concurrent });
        runLog.push(...second.exchanges.filter((x) => x.channel === 'api'));
        result.retry = {
          outcome: second.outcome,
          durationMs: second.durationMs,
          failures: second.failures,
          ...(second.error === undefined ? {} : { error: { message: second.error.message } }),
        };
        if (!isFailing(second.outcome) && second.outcome !== 'SKIPPED') result.outcome = 'FLAKY';
      }
    }
    progress({ type: 'end', result, index: i, total: ordered.length });
    return result;
  };

  const jobs = Math.max(1, options.jobs ?? 1);
  if (jobs === 1) {
    const results: CheckResult[] = [];
    for (const check of ordered) results.push(await runOne(check, resettable && check.order !== 'first', false));
    return results;
  }

  // --jobs N: the 'first' checks, then every 'global' check alone after its own reset, then the
  // 'own' and 'recorder' checks N at a time after one shared reset (at most one 'recorder' check
  // at a time: there is one recorder), then the 'last' ones (which audit them all).
  const byId = new Map<string, CheckResult>();
  // --recorder-alone: the recorder checks run alone as global ones do (the schedule before 'recorder' existed).
  const isolation = (c: Check): 'own' | 'recorder' | 'global' => {
    const i = isolationOf(c);
    return i === 'recorder' && options.recorderAlone === true ? 'global' : i;
  };
  const first = ordered.filter((c) => c.order === 'first');
  const last = ordered.filter((c) => c.order === 'last');
  const global = ordered.filter((c) => c.order === undefined && isolation(c) === 'global');
  // The recorder checks first: one after the other they make the longest chain of the pool, so it starts at once.
  const pool = [
    ...ordered.filter((c) => c.order === undefined && isolation(c) === 'recorder'),
    ...ordered.filter((c) => c.order === undefined && isolation(c) === 'own'),
  ];
  for (const c of first) byId.set(c.id, await runOne(c, false, false));
  for (const c of global) byId.set(c.id, await runOne(c, resettable, false));
  if (pool.length > 0) {
    await prepareSharedRun(session, pool, resettable);
    const queue = [...pool];
    let recorderBusy = false;
    // The next check this worker may start: a recorder check only while no other one runs. A worker that finds
    // only recorder checks left while one runs stops; the worker running it takes the rest in turn.
    const take = (): Check | undefined => {
      const i = queue.findIndex((c) => !recorderBusy || isolation(c) !== 'recorder');
      return i < 0 ? undefined : queue.splice(i, 1)[0];
    };
    const worker = async (): Promise<void> => {
      for (let c = take(); c !== undefined; c = take()) {
        const recorder = isolation(c) === 'recorder';
        if (recorder) recorderBusy = true;
        try {
          byId.set(c.id, await runOne(c, false, true));
        } finally {
          if (recorder) recorderBusy = false;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(jobs, pool.length) }, worker));
  }
  for (const c of last) byId.set(c.id, await runOne(c, resettable, false));
  return ordered.map((c) => byId.get(c.id)!);
}

/**
 * Before the 'own' and 'recorder' checks run side by side: one reset, and the webhook
 * receiver put on the Local webhook targets allowlist once (it is read at
 * startup, so a restart follows), so that no check restarts the target
 * under the others (harness/webhooks.ts, allowReceiver, then finds it there).
 */
async function prepareSharedRun(session: Session, pool: readonly Check[], resettable: boolean): Promise<void> {
  const control = session.env.control;
  if (control === null) return;
  const ctx = new CheckContext(
    { id: 'setup/shared-run', clauses: [], level: 'requirement', needs: [], description: '', requirement: '' },
    session.env,
  );
  session.setCurrent(ctx);
  try {
    if (resettable) await control.reset();
    const receiver = pool.some((c) => c.needs.includes('receiver')) ? await session.env.receiver() : null;
    if (receiver !== null && !('missing' in receiver) && control.has('settings') && control.has('restart')) {
      const hostPort = receiver.endpoint('shared-run-allowlist').hostPort;
      const settings = await control.settings();
      if (!settings.local_webhook_targets.includes(hostPort)) {
        await control.patchSettings({ local_webhook_targets: [...settings.local_webhook_targets, hostPort] });
        await control.restart();
      }
    }
  } finally {
    ctx.close();
    session.setCurrent(null);
  }
}
