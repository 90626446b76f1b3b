/**
 * Opens a run's session on the target: the Control API's discovery, the
 * tokens the run holds (session-tokens.ts), whether webhooks are switched
 * on, and the webhook receiver (started the first time a check needs it).
 */
import type { CheckContext } from '../harness/context.ts';
import type { Environment } from '../harness/context-types.ts';
import { ControlDriver } from '../harness/control.ts';
import type { Exchange } from '../harness/exchange.ts';
import { ExchangeAudit } from '../harness/exchange-audit.ts';
import { HttpClient } from '../harness/http.ts';
import type { ExchangeSink } from '../harness/http.ts';
import { RunLedger } from '../harness/ledger.ts';
import { Receiver } from '../harness/receiver.ts';
import { Secrets } from '../harness/secrets.ts';
import { ControlError } from '../harness/signals.ts';
import { TokenPool, TokenUse } from '../harness/token-pool.ts';
import type { PoolToken } from '../harness/token-pool.ts';
import { USER_AGENT } from '../version.ts';
import { cleanUp } from './cleanup.ts';
import { poolTokens, whoamiOfToken } from './session-tokens.ts';
import type { ProgressEvent, RunOptions, Session } from './session-types.ts';
import { SetupError } from './setup-error.ts';

function isLoopbackUrl(url: string): boolean {
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host === '::1' || /^127\./.test(host);
  } catch {
    return false;
  }
}

/**
 * The one way the run's Control API client is built: the session's shared
 * one, and the own one of each check that runs beside others (run.ts). The
 * ledger, when given, watches what it creates and stops it after the run.
 */
export function controlHttpClient(o: {
  baseUrl: string;
  secrets: Secrets;
  sink: () => ExchangeSink;
  timeoutMs: number;
  ledger: RunLedger | undefined;
}): HttpClient {
  return new HttpClient({
    baseUrl: o.baseUrl,
    channel: 'control',
    secrets: o.secrets,
    sink: o.sink,
    defaultTimeoutMs: o.timeoutMs,
    ...(o.ledger === undefined ? {} : { observe: o.ledger.observeControl, stopped: o.ledger.stopped }),
  });
}

/** Waits until the API answers GET /health with anything but a 5xx (after a reset or restart through the Control API). */
async function untilApiAnswers(baseUrl: string): Promise<void> {
  const until = Date.now() + 20_000;
  let last = '';
  while (Date.now() < until) {
    try {
      const res = await fetch(new URL('health', baseUrl.replace(/\/?$/, '/')), {
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
}

/** The Control API driver from --control-url (discovery, then the capabilities kept), or why there is none. */
async function connectControl(
  options: RunOptions,
  secrets: Secrets,
  sink: () => ExchangeSink,
  ledger: RunLedger,
  progress: (e: ProgressEvent) => void,
): Promise<{ control: ControlDriver | null; controlMissing: string; controlClient: HttpClient | null }> {
  if (options.controlUrl === undefined) return { control: null, controlMissing: 'no --control-url was given', controlClient: null };
  if (options.controlSecret === undefined) throw new SetupError('--control-url needs --control-secret (or MAS_CONTROL_SECRET)');
  const controlClient = controlHttpClient({
    baseUrl: options.controlUrl,
    secrets,
    sink,
    timeoutMs: Math.max(options.requestTimeoutMs, 30_000),
    ledger,
  });
  try {
    const discovered = await ControlDriver.discover(controlClient, options.controlSecret);
    const only = options.controlCapabilities;
    const discovery =
      only === undefined ? discovered : { ...discovered, capabilities: discovered.capabilities.filter((c) => only.includes(c)) };
    const control = new ControlDriver(controlClient, options.controlSecret, discovery, () => untilApiAnswers(options.baseUrl));
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
    return { control, controlMissing: '', controlClient };
  } catch (err) {
    const curl = err instanceof ControlError && err.curl !== undefined ? `\n  ${err.curl}` : '';
    throw new SetupError(`the Control API at ${options.controlUrl} cannot be used: ${(err as Error).message}${curl}`);
  }
}

/**
 * Without the Control API's 'settings' nothing can switch webhooks on; when the target has them off, a webhook
 * check's premise does not hold (its registrations would meet the feature switch, not the rule it tests).
 * Returns the skip reason, or null.
 */
async function webhooksSwitchedOff(
  api: HttpClient,
  control: ControlDriver | null,
  pooled: readonly PoolToken[],
  progress: (e: ProgressEvent) => void,
): Promise<string | null> {
  const reader = pooled.find((t) => t.scopesKnown === false || t.scopes.some((x) => x === 'read' || x === 'record' || x === 'write'));
  if (control?.has('settings') === true || reader === undefined) return null;
  const res = await api.get('/v1/webhooks', { token: reader.token, label: 'setup: are webhooks switched on?' });
  if (res.status !== 403 || res.errorCode === 'insufficient_scope') return null;
  const off = `webhooks are switched off on the target (GET /v1/webhooks answered ${res.describe(140)}): switch them on in its settings, or give --control-url with the 'settings' capability`;
  progress({ type: 'setup', message: off });
  return off;
}

/** The webhook receiver, started the first time a check asks for it (or why it cannot be). */
function lazyReceiver(
  options: RunOptions,
  local: boolean,
): { get: () => Promise<Receiver | { missing: string }>; close: () => Promise<void> } {
  let receiver: Promise<Receiver | { missing: string }> | null = null;
  const get = (): Promise<Receiver | { missing: string }> => {
    if (receiver === null) {
      if (options.receiverHost === undefined && !local) {
        receiver = Promise.resolve({
          missing: 'the target is not on this machine: give --receiver-host with an address of this machine that the target can reach',
        });
      } else {
        receiver = Receiver.start({
          ...(options.receiverHost === undefined ? {} : { publicHost: options.receiverHost }),
          ...(options.receiverAnswerDelayMs === undefined ? {} : { answerDelayMs: options.receiverAnswerDelayMs }),
          ...(options.receiverArrivalDelayMs === undefined ? {} : { arrivalDelayMs: options.receiverArrivalDelayMs }),
        }).catch((err: unknown) => ({
          missing: `the webhook receiver could not listen: ${err instanceof Error ? err.message : String(err)}`,
        }));
      }
    }
    return receiver;
  };
  const close = async (): Promise<void> => {
    if (receiver === null) return;
    const r = await receiver;
    if (r instanceof Receiver) await r.close();
  };
  return { get, close };
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
  const ledger = new RunLedger(options.baseUrl, options.controlUrl);

  // The Control API client records into the running check (setCurrent), else into the setup log.
  const { control, controlMissing, controlClient } = await connectControl(
    options,
    secrets,
    () => current?.sink ?? setupSink,
    ledger,
    progress,
  );
  // The one API client of the setup: whoami of each token, and whether webhooks are on; it records into the setup log.
  const setupApi = new HttpClient({
    baseUrl: options.baseUrl,
    channel: 'api',
    secrets,
    sink: () => setupSink,
    defaultTimeoutMs: options.requestTimeoutMs,
  });
  const userToken = options.token === undefined ? null : await whoamiOfToken(setupApi, options.token, progress);
  const pooled = await poolTokens(setupApi, userToken, options.tokensFile, secrets, progress);
  const webhooksOff = await webhooksSwitchedOff(setupApi, control, pooled, progress);

  const local = isLoopbackUrl(options.baseUrl);
  const receiver = lazyReceiver(options, local);
  const env: Environment = {
    baseUrl: options.baseUrl,
    secrets,
    control,
    controlMissing,
    controlClient,
    userToken,
    tokenPool: pooled.length === 0 ? null : new TokenPool(pooled),
    tokenUse: new TokenUse(),
    webhooksOff,
    seed: options.seed,
    runs: options.runs,
    slow: options.slow,
    fresh: options.fresh,
    local,
    ...(options.lanHost === undefined ? {} : { lanHost: options.lanHost }),
    requestTimeoutMs: options.requestTimeoutMs,
    receiver: receiver.get,
    runLog: [],
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
    close: receiver.close,
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
