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
 */
import type { Check, ControlCapability, Need } from '../harness/check.ts';
import { CONTROL_CAPABILITIES, checkArea } from '../harness/check.ts';
import { CheckContext, PropertyMismatch } from '../harness/context.ts';
import type { Environment } from '../harness/context.ts';
import { ControlDriver } from '../harness/control.ts';
import type { Exchange } from '../harness/exchange.ts';
import { ExchangeAudit } from '../harness/exchange-audit.ts';
import { RunLedger } from '../harness/ledger.ts';
import type { CleanupSummary } from '../harness/ledger.ts';
import { cleanUp } from './cleanup.ts';
import { HttpClient } from '../harness/http.ts';
import type { ExchangeSink } from '../harness/http.ts';
import { Receiver } from '../harness/receiver.ts';
import { Secrets } from '../harness/secrets.ts';
import { TokenPool, TokenUse, TokensFileError, readTokensFile } from '../harness/token-pool.ts';
import type { PoolToken } from '../harness/token-pool.ts';
import type { TokenKind, TokenOrigin } from '../harness/control.ts';
import { ControlError, SkipSignal, StopCheck } from '../harness/signals.ts';
import type { Attempt, CheckResult, Outcome } from './result.ts';
import { isFailing } from './result.ts';
import { USER_AGENT } from '../version.ts';

export const DEFAULT_CHECK_TIMEOUT_MS = 60_000;

export interface RunOptions {
  baseUrl: string;
  controlUrl?: string;
  controlSecret?: string;
  token?: string;
  /** Use only these capabilities of the Control API (what a target offering fewer would give). */
  controlCapabilities?: string[];
  /** A tokens file (harness/token-pool.ts): tokens of other descriptions for a target without a Control API. */
  tokensFile?: string;
  seed: number;
  runs: number;
  slow: boolean;
  fresh: boolean;
  receiverHost?: string;
  /** --lan-host: the only non-loopback address the suite may send traffic to (the LAN checks). */
  lanHost?: string;
  requestTimeoutMs: number;
  /** The webhook receiver answers every delivery this much later (the slow-receiver variant of the self-test). */
  receiverAnswerDelayMs?: number;
  /** Re-run a failed check once (default true). */
  retry?: boolean;
  /** Reset the target before each check when the Control API allows it (default true). */
  reset?: boolean;
  replay?: Record<string, { seed: number; path?: string }>;
  replayHint?: (checkId: string) => string;
  /** The redactor of the run's output (the caller may already print through it); made here when absent. */
  secrets?: Secrets;
  /** --public-webhook-url (docs/decisions/075-conformance-leaves-the-target-as-found.md). */
  publicWebhookUrl?: string;
}

export type ProgressEvent =
  | { type: 'setup'; message: string }
  | { type: 'start'; check: Check; index: number; total: number }
  | { type: 'retry'; check: Check; first: Outcome }
  | { type: 'end'; result: CheckResult; index: number; total: number };

/** The run could not start: the Control API did not answer, etc. */
export class SetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SetupError';
  }
}

export function isLoopbackUrl(url: string): boolean {
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host === '::1' || /^127\./.test(host);
  } catch {
    return false;
  }
}

export interface Session {
  env: Environment;
  secrets: Secrets;
  capabilities: string[] | undefined;
  /** Exchanges of the setup (discovery, whoami of --token). */
  setupLog: Exchange[];
  /** Routes the shared Control API client's records into the running check. */
  setCurrent(ctx: CheckContext | null): void;
  close(): Promise<void>;
  /** What the run created on the target (harness/ledger.ts); absent in test doubles of a session. */
  ledger?: RunLedger;
  /** Removes it as far as the run's tokens allow (runner/cleanup.ts); --keep: only the summary. */
  cleanUp?(options: { keep?: boolean; interrupted?: boolean }): Promise<CleanupSummary>;
}

/** Connects to the target: Control API discovery, the --token's scopes, the receiver (lazily). */
export async function openSession(options: RunOptions, progress: (e: ProgressEvent) => void = () => undefined): Promise<Session> {
  const secrets = options.secrets ?? new Secrets();
  if (options.controlSecret !== undefined) secrets.add(options.controlSecret, '$MAS_CONTROL_SECRET');
  if (options.token !== undefined) secrets.add(options.token, '$MAS_TOKEN');
  const setupLog: Exchange[] = [];
  let seq = 0;
  const setupSink: ExchangeSink = (x) => {
    const e = { seq: ++seq, ...x };
    setupLog.push(e);
    return e;
  };
  let current: CheckContext | null = null;
  const sink = (): ExchangeSink => current?.sink ?? setupSink;
  const ledger = new RunLedger(options.baseUrl, options.controlUrl);

  const ready = async (): Promise<void> => {
    const until = Date.now() + 20_000;
    let last = '';
    while (Date.now() < until) {
      try {
        const res = await fetch(new URL('health', options.baseUrl.replace(/\/?$/, '/')), {
          signal: AbortSignal.timeout(2000),
          headers: { 'user-agent': USER_AGENT },
        });
        await res.arrayBuffer();
        // Any answer but a 5xx means the API is serving again (a target may guard /health).
        if (res.status < 500) return;
        last = `status ${res.status}`;
      } catch (err) {
        last = (err as Error).message;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new ControlError(`the API did not answer GET /health within 20 s after a reset or restart (last: ${last})`);
  };

  let control: ControlDriver | null = null;
  let controlMissing = 'no --control-url was given';
  let controlClient: HttpClient | null = null;
  if (options.controlUrl !== undefined) {
    if (options.controlSecret === undefined) throw new SetupError('--control-url needs --control-secret (or MAS_CONTROL_SECRET)');
    controlClient = new HttpClient({
      baseUrl: options.controlUrl,
      channel: 'control',
      secrets,
      sink,
      defaultTimeoutMs: Math.max(options.requestTimeoutMs, 30_000),
      observe: ledger.observeControl,
      stopped: ledger.stopped,
    });
    try {
      const discovered = await ControlDriver.discover(controlClient, options.controlSecret);
      const only = options.controlCapabilities;
      const discovery =
        only === undefined ? discovered : { ...discovered, capabilities: discovered.capabilities.filter((c) => only.includes(c)) };
      control = new ControlDriver(controlClient, options.controlSecret, discovery, ready);
      // The settings as found, for the cleanup to put back (harness/ledger.ts).
      if (control.has('settings'))
        ledger.settingsBefore = await control.settings().then(
          (found) => ({ ...found }),
          () => undefined, // not readable: nothing to restore, and the checks that need it will say so
        );
      progress({
        type: 'setup',
        message: `Control API ${options.controlUrl}: version ${discovery.version}, capabilities ${discovery.capabilities.join(', ') || '(none)'}`,
      });
    } catch (err) {
      const curl = err instanceof ControlError && err.curl !== undefined ? `\n  ${err.curl}` : '';
      throw new SetupError(`the Control API at ${options.controlUrl} cannot be used: ${(err as Error).message}${curl}`);
    }
    controlMissing = '';
  }

  let userToken: Environment['userToken'] = null;
  if (options.token !== undefined) {
    const client = new HttpClient({
      baseUrl: options.baseUrl,
      channel: 'api',
      secrets,
      sink: () => setupSink,
      defaultTimeoutMs: options.requestTimeoutMs,
    });
    const res = await client.get('/v1/whoami', { token: options.token, label: 'setup: whoami of --token' });
    if (res.status === 401 || res.status === 0) {
      throw new SetupError(
        `--token cannot be used: GET /v1/whoami answered ${res.describe(160)} (a Control API reset erases every token, the startup one too)`,
      );
    }
    const scopes = (res.body as { scopes?: unknown } | undefined)?.scopes;
    userToken = { token: options.token, scopes: res.status === 200 && Array.isArray(scopes) ? scopes.map(String) : null };
    progress({
      type: 'setup',
      message:
        userToken.scopes === null
          ? `--token: GET /v1/whoami answered ${res.describe(120)}; its scopes are unknown`
          : `--token holds ${userToken.scopes.join(', ') || 'no scope'}`,
    });
  }

  const pooled: PoolToken[] = [];
  const describe = async (
    token: string,
    source: string,
    given: { scopes?: string[]; origin?: TokenOrigin; kind?: TokenKind; note?: string },
  ): Promise<void> => {
    const client = new HttpClient({
      baseUrl: options.baseUrl,
      channel: 'api',
      secrets,
      sink: () => setupSink,
      defaultTimeoutMs: options.requestTimeoutMs,
    });
    const res = await client.get('/v1/whoami', { token, label: `setup: whoami of ${source}` });
    if (res.status === 401 || res.status === 0)
      throw new SetupError(`${source} cannot be used: GET /v1/whoami answered ${res.describe(160)}`);
    const who = (res.status === 200 ? res.body : {}) as { token_id?: unknown; scopes?: unknown; origin?: unknown; kind?: unknown };
    const scopes = given.scopes ?? (Array.isArray(who.scopes) ? who.scopes.map(String) : null);
    if (scopes === null)
      throw new SetupError(
        `${source}: GET /v1/whoami answered ${res.describe(120)}, so its scopes are unknown; give them in the tokens file ("scopes")`,
      );
    const origin =
      given.origin ??
      (typeof who.origin === 'string' && ['loopback', 'paired', 'lan'].includes(who.origin) ? (who.origin as TokenOrigin) : 'loopback');
    const kind =
      given.kind ??
      (typeof who.kind === 'string' && ['standard', 'first_party', 'assistant'].includes(who.kind) ? (who.kind as TokenKind) : 'standard');
    pooled.push({
      token,
      tokenId: typeof who.token_id === 'string' ? who.token_id : '',
      scopes,
      origin,
      kind,
      source,
      ...(given.note === undefined ? {} : { note: given.note }),
    });
  };
  if (userToken !== null && userToken.scopes !== null) await describe(userToken.token, '--token', { scopes: userToken.scopes });
  // A --token whose scopes whoami did not tell is used as before: for any check content with "at least" some scopes.
  else if (userToken !== null)
    pooled.push({
      token: userToken.token,
      tokenId: '',
      scopes: [],
      scopesKnown: false,
      origin: 'loopback',
      kind: 'standard',
      source: '--token',
    });
  if (options.tokensFile !== undefined) {
    let entries;
    try {
      entries = readTokensFile(options.tokensFile);
    } catch (err) {
      if (err instanceof TokensFileError) throw new SetupError(err.message);
      throw err;
    }
    for (const e of entries) {
      secrets.add(e.token, `$MAS_TOKEN_${e.index}`);
      await describe(e.token, `tokens file entry ${e.index}`, e);
    }
    progress({
      type: 'setup',
      message: `--tokens: ${pooled
        .filter((t) => t.source !== '--token')
        .map((t) => `#${t.source.replace(/\D+/g, '')} ${t.scopes.join('+') || 'no scope'} · ${t.origin} · ${t.kind}`)
        .join('; ')}`,
    });
  }
  const tokenPool = pooled.length === 0 ? null : new TokenPool(pooled);

  // Without the Control API's 'settings' nothing can switch webhooks on; when the target has them off, a webhook
  // check's premise does not hold (its registrations would meet the feature switch, not the rule it tests).
  let webhooksOff: string | null = null;
  const reader = pooled.find((t) => t.scopesKnown === false || t.scopes.some((x) => x === 'read' || x === 'record' || x === 'write'));
  if (control?.has('settings') !== true && reader !== undefined) {
    const client = new HttpClient({
      baseUrl: options.baseUrl,
      channel: 'api',
      secrets,
      sink: () => setupSink,
      defaultTimeoutMs: options.requestTimeoutMs,
    });
    const res = await client.get('/v1/webhooks', { token: reader.token, label: 'setup: are webhooks switched on?' });
    if (res.status === 403 && res.errorCode !== 'insufficient_scope') {
      webhooksOff = `webhooks are switched off on the target (GET /v1/webhooks answered ${res.describe(140)}): switch them on in its settings, or give --control-url with the 'settings' capability`;
      progress({ type: 'setup', message: webhooksOff });
    }
  }

  const local = isLoopbackUrl(options.baseUrl);
  let receiver: Promise<Receiver | { missing: string }> | null = null;
  const getReceiver = (): Promise<Receiver | { missing: string }> => {
    if (receiver === null) {
      if (options.receiverHost === undefined && !local) {
        receiver = Promise.resolve({
          missing: 'the target is not on this machine: give --receiver-host with an address of this machine that the target can reach',
        });
      } else {
        receiver = Receiver.start({
          ...(options.receiverHost === undefined ? {} : { publicHost: options.receiverHost }),
          ...(options.receiverAnswerDelayMs === undefined ? {} : { answerDelayMs: options.receiverAnswerDelayMs }),
        }).catch((err: unknown) => ({
          missing: `the webhook receiver could not listen: ${err instanceof Error ? err.message : String(err)}`,
        }));
      }
    }
    return receiver;
  };

  const runLog: Exchange[] = [];
  const env: Environment = {
    baseUrl: options.baseUrl,
    secrets,
    control,
    controlMissing,
    controlClient,
    userToken,
    tokenPool,
    tokenUse: new TokenUse(),
    webhooksOff,
    seed: options.seed,
    runs: options.runs,
    slow: options.slow,
    fresh: options.fresh,
    local,
    ...(options.lanHost === undefined ? {} : { lanHost: options.lanHost }),
    requestTimeoutMs: options.requestTimeoutMs,
    receiver: getReceiver,
    runLog,
    exchangeAudit: new ExchangeAudit(options.baseUrl),
    ledger,
    ...(options.publicWebhookUrl === undefined ? {} : { publicWebhookUrl: options.publicWebhookUrl }),
    ...(options.replay === undefined ? {} : { replay: options.replay }),
    replayHint: options.replayHint ?? ((id) => `--only ${id} --seed ${options.seed}`),
  };
  return {
    env,
    setCurrent: (c) => {
      current = c;
    },
    secrets,
    capabilities: control === null ? undefined : [...control.capabilities],
    setupLog,
    close: async () => {
      if (receiver !== null) {
        const r = await receiver;
        if (r instanceof Receiver) await r.close();
      }
    },
    ledger,
    cleanUp: async ({ keep, interrupted }) => {
      // A check that ran out of time may still be running: from here on only the cleanup sends requests.
      ledger.stop(interrupted === true ? 'the run was interrupted (Ctrl+C)' : 'the run has ended: only its cleanup sends requests now');
      return keep === true
        ? ledger.summary({ kept: true, ...(interrupted === true ? { interrupted } : {}) })
        : cleanUp(
            {
              baseUrl: options.baseUrl,
              secrets,
              ledger,
              pool: pooled,
              control,
              ...(options.controlSecret === undefined ? {} : { controlSecret: options.controlSecret }),
              requestTimeoutMs: options.requestTimeoutMs,
            },
            { ...(interrupted === true ? { interrupted } : {}) },
          );
    },
  };
}

/** Why a check cannot run here, or null. */
export function missingNeed(need: Need, env: Environment): string | null {
  switch (need) {
    case 'token':
      return env.control?.has('tokens') === true || env.userToken !== null || (env.tokenPool ?? null) !== null
        ? null
        : "needs an API token: give --token or --tokens, or --control-url with the 'tokens' capability";
    case 'tokens':
      // Without the Control API the check runs with the tokens handed to the run; one it lacks makes it SKIPPED, naming it.
      if (env.control?.has('tokens') === true || (env.tokenPool ?? null) !== null) return null;
      if (env.control === null)
        return `needs tokens of several scope sets: give --tokens FILE (or --token), or --control-url with the 'tokens' capability (${env.controlMissing})`;
      return `needs the Control API capability 'tokens' (the target offers: ${[...env.control.capabilities].join(', ') || 'none'}), or --tokens FILE`;
    case 'receiver':
      return env.receiverHint ?? null;
    case 'meeting':
      // Seeded through the Control API, or made by importing speech with any token that may import.
      return env.control?.has('meetings') === true ||
        env.control?.has('tokens') === true ||
        env.userToken !== null ||
        (env.tokenPool ?? null) !== null
        ? null
        : "needs a meeting: give --token (one that may import: read and write), or --control-url with the 'meetings' capability";
    case 'slow':
      return env.slow ? null : 'a slow check (minutes of waiting): run with --slow';
    case 'fresh':
      return env.fresh
        ? null
        : 'needs a target started as a fresh installation (empty data folder, default settings): start one and run with --fresh';
    case 'local':
      return env.local ? null : 'needs the target on this machine (a loopback base URL)';
    default:
      if (env.control === null) return `needs the Control API capability '${need}': ${env.controlMissing}`;
      return env.control.has(need)
        ? null
        : `needs the Control API capability '${need}' (the target offers: ${[...env.control.capabilities].join(', ') || 'none'})`;
  }
}

/** What each Control API capability brings a check, for the skip reasons (a target without it learns what it misses). */
export const CAPABILITY_BRINGS: Record<ControlCapability, string> = {
  reset: 'a clean target before the check',
  settings: 'settings: webhooks, the webhook allowlist, the API switch, pre-arming, license',
  restart: 'a restart, for settings read at startup',
  tokens: 'tokens of any description',
  meetings: 'meetings of chosen text',
  jobs: 'jobs held in a chosen state',
  pairings: 'approving pairings',
  'webhook-approval': 'approving webhooks, so they are delivered',
  devices: 'simulated devices',
  'recording-fault': 'recording faults',
};

/**
 * Why a check cannot run here, or null: the first need that is not met; when
 * several are Control API capabilities, all of those, each with what it
 * brings, so a skip names everything that would unlock the check.
 */
export function missingNeeds(check: Check, env: Environment): string | null {
  const missing = check.needs.map((n) => [n, missingNeed(n, env)] as const).filter(([, m]) => m !== null);
  const capabilities = missing
    .map(([n]) => n)
    .filter((n): n is ControlCapability => (CONTROL_CAPABILITIES as readonly string[]).includes(n));
  if (capabilities.length > 1 && missing[0] !== undefined && capabilities.includes(missing[0][0] as ControlCapability)) {
    const why = env.control === null ? env.controlMissing : `the target offers: ${[...env.control.capabilities].join(', ') || 'none'}`;
    return `needs the Control API capabilities ${capabilities.map((c) => `'${c}' (${CAPABILITY_BRINGS[c]})`).join(', ')}: ${why}`;
  }
  return missing[0]?.[1] ?? null;
}

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
        new HttpClient({
          baseUrl: client.baseUrl,
          channel: 'control',
          secrets: session.env.secrets,
          sink: () => ctx.sink,
          defaultTimeoutMs: client.timeoutMs,
          ...(env.ledger === undefined ? {} : { observe: env.ledger.observeControl, stopped: env.ledger.stopped }),
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

export function skippedResult(check: Check, reason: string): CheckResult {
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
    if (interrupted()) result = skippedResult(check, 'the run was interrupted before this check');
    else if (missing !== undefined && missing !== null) {
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
    { id: 'setup/shared-run', clauses: [], level: 'requirement', needs: [], description: '', requirement: '', run: async () => undefined },
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
