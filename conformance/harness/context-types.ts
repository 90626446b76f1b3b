/**
 * What a check's context is made of and offers, as types: the environment the
 * runner shares with every check, the client bound to one token, and the part
 * of the context the fixture helpers use (harness/fixtures.ts, api-fixtures.ts,
 * jobs.ts). Types only, so that context.ts can build its Fixtures from those
 * helpers without their importing context.ts back.
 */
import type { Scope } from '../spec/constants.ts';
import type { CheckInfo, ControlCapability } from './check-types.ts';
import type { ControlDriver, SeedMeeting } from './control.ts';
import type { Exchange } from './exchange.ts';
import type { ExchangeAudit } from './exchange-audit.ts';
import type { ExchangeSink, HttpClient, HttpResult, RequestOptions } from './http.ts';
import type { RunLedger } from './ledger.ts';
import type { Receiver } from './receiver.ts';
import type { Secrets } from './secrets.ts';
import type { TokenPool, TokenUse } from './token-pool.ts';

/** What the runner shares with every check. */
export interface Environment {
  baseUrl: string;
  secrets: Secrets;
  control: ControlDriver | null;
  /** Why there is no Control API driver ('no --control-url given', or the discovery error). */
  controlMissing: string;
  controlClient: HttpClient | null;
  /** --token, with the scopes its whoami reported (null when unknown). */
  userToken: { token: string; scopes: string[] | null } | null;
  /** --token and the --tokens file's entries, described by whoami: what ctx.token and ctx.mint take without the Control API. */
  tokenPool?: TokenPool | null;
  /** Which token descriptions the checks asked for and where each came from (printed after a run). */
  tokenUse?: TokenUse;
  /** The meeting made by import that read-only checks share when no Control API seeds meetings (harness/fixtures.ts). */
  sharedMeeting?: Promise<{ id: string; seed: SeedMeeting }> | undefined;
  /** The long meeting made by import that the real-diarization checks share (harness/api-fixtures.ts sharedLongMeeting). */
  sharedLongMeeting?: Promise<string> | undefined;
  /** Why webhook checks cannot run: the target has webhooks switched off and no Control API can switch them on. */
  webhooksOff?: string | null;
  seed: number;
  runs: number;
  slow: boolean;
  fresh: boolean;
  /** The target's base URL is a loopback address (it runs on this machine). */
  local: boolean;
  /** --lan-host: the one non-loopback address the user allows the LAN checks to reach. */
  lanHost?: string;
  requestTimeoutMs: number;
  /** Why the receiver cannot be used (set by the runner), or null/undefined. */
  receiverHint?: string | null;
  /** Started on first use; null with the reason when it cannot be. */
  receiver(): Promise<Receiver | { missing: string }>;
  /** API exchanges of the checks run before this one (for audits). */
  runLog: readonly Exchange[];
  /** Every API answer of the run with its unredacted body, for the manifest audit (openapi/manifest-exchanges). */
  exchangeAudit?: ExchangeAudit;
  /** What the run created on the target, recorded as the API answers (harness/ledger.ts); removed after the run. */
  ledger?: RunLedger;
  /** --public-webhook-url: where webhooks that must point at a public address point (decision 075). */
  publicWebhookUrl?: string;
  /** property name → seed and path, when replaying a failure. */
  replay?: Record<string, { seed: number; path?: string }>;
  /** How to re-run one check from the command line (for PropertyRun.replay). */
  replayHint(checkId: string): string;
}

/** A client bound to one token: ctx.as(token).get('/v1/meetings'). */
export interface BoundClient {
  get(path: string, options?: RequestOptions): Promise<HttpResult>;
  post(path: string, options?: RequestOptions): Promise<HttpResult>;
  put(path: string, options?: RequestOptions): Promise<HttpResult>;
  patch(path: string, options?: RequestOptions): Promise<HttpResult>;
  delete(path: string, options?: RequestOptions): Promise<HttpResult>;
  request(method: string, path: string, options?: RequestOptions): Promise<HttpResult>;
  readonly token: string;
}

/** What the fixture helpers use of a check's context (CheckContext implements it). */
export interface FixtureHost {
  readonly check: CheckInfo;
  readonly env: Environment;
  /** Where this check's exchanges are recorded. */
  readonly sink: ExchangeSink;
  /** The run's seed for this check. */
  readonly seed: number;
  /** The Control API driver; SKIPPED when there is none. */
  readonly control: ControlDriver;
  has(capability: ControlCapability): boolean;
  skip(reason: string): never;
  fixtureToken(scopes: readonly Scope[]): Promise<string>;
  as(token: string): BoundClient;
  sleep(ms: number): Promise<void>;
}
