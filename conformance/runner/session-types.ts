/**
 * The shapes a run is opened with and through: its options, the progress it
 * reports and the session the checks run in. Types only, so the runner's
 * modules and the reporters share them without importing one another.
 */
import type { Check } from '../harness/check.ts';
import type { CheckContext } from '../harness/context.ts';
import type { Environment } from '../harness/context-types.ts';
import type { Exchange } from '../harness/exchange.ts';
import type { CleanupSummary, RunLedger } from '../harness/ledger.ts';
import type { Secrets } from '../harness/secrets.ts';
import type { CheckResult, Outcome } from './result.ts';

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
  /** Every delivery reaches the receiver this much later than the target sent it (the slow-background variant). */
  receiverArrivalDelayMs?: number;
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
