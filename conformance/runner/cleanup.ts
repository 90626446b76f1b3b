/**
 * Removes what the run created on the target (harness/ledger.ts), as far as
 * the run's tokens allow, and says what is left and why
 * (docs/decisions/075-conformance-leaves-the-target-as-found.md):
 *
 * 0. Control API settings the run changed (a PATCH, a reset) are put back
 *    as they were when it started, before anything else (an API left off
 *    would refuse every delete);
 * 1. a recording the run started and that still runs is stopped;
 * 2. jobs: the API has no delete route; a job of the run still queued,
 *    running or paused is cancelled, and an import job's meeting is read
 *    (GET /v1/jobs/{id}) so that the meeting goes too;
 * 3. webhooks: DELETE /v1/webhooks/{id} with the token that registered it
 *    (owner only);
 * 4. meetings: DELETE /v1/meetings/{id} with a token of the run holding
 *    delete, or one minted for the purpose through the Control API;
 * 5. simulated devices and Control API tokens: through the Control API;
 * 6. pairing requests: no route removes one.
 *
 * A 404 means the thing is already gone (a check deleted it, say): removed.
 * The cleanup never resets the target: a reset would erase what was there
 * before the run too.
 */
import type { ControlDriver } from '../harness/control.ts';
import type { Exchange } from '../harness/exchange.ts';
import { HttpClient } from '../harness/http.ts';
import type { HttpResult } from '../harness/http.ts';
import { isTerminalJobState } from '../harness/ledger.ts';
import type { CleanupSummary, LedgerEntry, LedgerKind, RunLedger } from '../harness/ledger.ts';
import type { Secrets } from '../harness/secrets.ts';
import type { PoolToken } from '../harness/token-pool.ts';

export interface CleanupTarget {
  baseUrl: string;
  secrets: Secrets;
  ledger: RunLedger;
  /** --token and the --tokens file's entries. */
  pool: readonly PoolToken[];
  control: ControlDriver | null;
  controlSecret?: string;
  requestTimeoutMs: number;
}

/** The reasons the summary gives for what stays (exported for the tests and the README). */
export const LEFT = {
  jobs: 'the API has no delete route for jobs',
  pairings: 'the API has no route that removes a pairing request',
  noDeleteToken: "no token of the run holds the delete scope (give one, or --control-url with the 'tokens' capability)",
  noControl: (what: string) => `${what} need the Control API to be removed, which this run no longer has`,
} as const;

const MAX_PASSES = 3;

/** Removes what the ledger holds as present; returns the summary. Never throws on an answer of the target. */
export async function cleanUp(target: CleanupTarget, options: { interrupted?: boolean } = {}): Promise<CleanupSummary> {
  const c = openCleanup(target);
  const ledger = c.ledger;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    if (ledger.present().length === 0) break;

    // Settings first: a check may have left the API switched off or unlicensed, which would refuse every delete below.
    for (const s of ledger.present('settings')) await restoreSettings(s, ledger.settingsBefore ?? {}, c.control, leave);
    await stopRecordings(c);
    await settleJobs(c);
    await deleteWebhooks(c);
    await deleteMeetings(c);
    for (const p of ledger.present('pairings')) leave(p, LEFT.pairings);
    await removeDevices(c);

    // Tokens last: the webhooks and meetings above may have needed them.
    if (ledger.present().some((e) => e.kind !== 'tokens')) continue;
    await removeTokens(c);
  }
  const cancelled = ledger.entries.filter((e) => e.kind === 'jobs' && e.note === 'cancelled').length;
  if (cancelled > 0) c.note('jobs', `${cancelled} still running cancelled`);
  return ledger.summary({ kept: false, ...(options.interrupted === true ? { interrupted: true } : {}), notes: c.notes });
}

/** What every step of the cleanup works with: the two clients, the ledger, the notes, and the tokens it may use. */
interface Cleanup {
  target: CleanupTarget;
  api: HttpClient;
  control: ControlDriver | null;
  ledger: RunLedger;
  notes: Partial<Record<LedgerKind, string[]>>;
  note(kind: LedgerKind, text: string): void;
  /** Tokens the cleanup may use, best first: still alive as far as the run knows, holding the scope. */
  tokensWith(scope: string): string[];
  /** Tries each token until one is not refused for who it is (401/403); returns the last answer. */
  withAny(tokens: string[], call: (token: string) => Promise<HttpResult>): Promise<HttpResult | null>;
  /** Tokens holding delete: the run's, or one minted once through the Control API. */
  deleteTokens(): Promise<string[]>;
}

function openCleanup(target: CleanupTarget): Cleanup {
  const log: Exchange[] = [];
  let seq = 0;
  const sink = (x: Omit<Exchange, 'seq'>): Exchange => {
    const e = { seq: ++seq, ...x };
    if (log.length < 200) log.push(e);
    return e;
  };
  const api = new HttpClient({
    baseUrl: target.baseUrl,
    channel: 'api',
    secrets: target.secrets,
    sink: () => sink,
    defaultTimeoutMs: target.requestTimeoutMs,
    observe: target.ledger.observeApi,
  });
  const notes: Partial<Record<LedgerKind, string[]>> = {};
  const note = (kind: LedgerKind, text: string): void => {
    notes[kind] = [...(notes[kind] ?? []), text];
  };
  const ledger = target.ledger;
  const control = target.control === null ? null : target.control.withClient(controlClient(target, sink));

  const tokensWith = (scope: string): string[] => {
    const minted = ledger
      .present('tokens')
      .filter((e) => e.token !== undefined && e.token.disabled !== true && e.token.scopes.includes(scope))
      .map((e) => e.token!.value);
    const pooled = target.pool.filter((t) => t.scopesKnown === false || t.scopes.includes(scope)).map((t) => t.token);
    return [...new Set([...pooled, ...minted])];
  };
  const withAny = async (tokens: string[], call: (token: string) => Promise<HttpResult>): Promise<HttpResult | null> => {
    let last: HttpResult | null = null;
    for (const token of tokens) {
      last = await call(token);
      if (last.status !== 401 && last.status !== 403) return last;
    }
    return last;
  };
  let mintedForCleanup: string | null = null;
  const deleteTokens = async (): Promise<string[]> => {
    const held = tokensWith('delete');
    if (held.length > 0 || control === null || !control.has('tokens')) return held;
    if (mintedForCleanup === null) {
      try {
        // Observed by the ledger like any minted token, so it is deleted with the others at the end.
        mintedForCleanup = (await control.mintToken({ scopes: ['read', 'delete'], name: 'conformance cleanup' })).token;
      } catch {
        return [];
      }
    }
    return [mintedForCleanup];
  };
  return { target, api, control, ledger, notes, note, tokensWith, withAny, deleteTokens };
}

/** Marks an entry as staying, and why. */
function leave(e: LedgerEntry, why: string): void {
  e.state = 'left';
  e.why = why;
}

/** Marks an entry removed when the answer says it is gone (2xx, or 404: already gone). */
function gone(e: LedgerEntry, res: HttpResult): boolean {
  if (res.ok || res.status === 404) {
    e.state = 'removed';
    return true;
  }
  return false;
}

/** 1. A recording the run started and that still runs is stopped. */
async function stopRecordings(c: Cleanup): Promise<void> {
  for (const rec of c.ledger.present('recordings')) {
    const state = await c.withAny(c.tokensWith('read'), (t) => c.api.get('/v1/recording', { token: t, label: 'cleanup: recording state' }));
    const s = (state?.body as { state?: unknown } | undefined)?.state;
    if (s === 'starting' || s === 'recording' || s === 'paused') {
      const stop = await c.withAny([...(rec.creator === undefined ? [] : [rec.creator]), ...c.tokensWith('record')], (t) =>
        c.api.post('/v1/recording/stop', { token: t, label: 'cleanup: stop the run’s recording' }),
      );
      if (stop?.ok === true) c.note('recordings', 'stopped');
    }
    rec.state = 'removed';
  }
}

/** 2. A job of the run still queued, running or paused is cancelled (its meeting read again); every job stays. */
async function settleJobs(c: Cleanup): Promise<void> {
  for (const job of c.ledger.present('jobs')) {
    const read = [...c.tokensWith('read'), ...(job.creator === undefined ? [] : [job.creator])];
    const seen = await c.withAny(read, (t) => c.api.get(`/v1/jobs/${encodeURIComponent(job.id)}`, { token: t, label: 'cleanup: job' }));
    const state = seen?.ok === true ? c.ledger.jobSeen(seen.body) : undefined;
    if (seen?.status === 404) {
      job.state = 'removed';
      continue;
    }
    if (state !== undefined && !isTerminalJobState(state)) {
      const write = [...(job.creator === undefined ? [] : [job.creator]), ...c.tokensWith('write')];
      const cancel = await c.withAny(write, (t) =>
        c.api.post(`/v1/jobs/${encodeURIComponent(job.id)}/cancel`, { token: t, label: 'cleanup: cancel the run’s job' }),
      );
      if (cancel?.ok === true) {
        job.note = 'cancelled';
        // A cancelled import may still have made its meeting: read it again.
        const again = await c.withAny(read, (t) => c.api.get(`/v1/jobs/${encodeURIComponent(job.id)}`, { token: t }));
        if (again?.ok === true) c.ledger.jobSeen(again.body);
      }
    }
    leave(job, LEFT.jobs);
  }
}

/** 3. Webhooks: deleted with the token that registered them (owner only). */
async function deleteWebhooks(c: Cleanup): Promise<void> {
  for (const hook of c.ledger.present('webhooks')) {
    if (hook.creator === undefined) {
      leave(hook, 'the token that registered it is unknown');
      continue;
    }
    const res = await c.api.delete(`/v1/webhooks/${encodeURIComponent(hook.id)}`, { token: hook.creator, label: 'cleanup: webhook' });
    if (!gone(hook, res))
      leave(
        hook,
        res.status === 401 || res.status === 403
          ? `its owner token may no longer delete it (DELETE answered ${res.status}${res.errorCode === undefined ? '' : ` ${res.errorCode}`}; only the owner may)`
          : `DELETE /v1/webhooks/{id} answered ${res.status === 0 ? (res.error ?? 'no answer') : res.status}`,
      );
  }
}

/** 4. Meetings: deleted with a token holding delete. */
async function deleteMeetings(c: Cleanup): Promise<void> {
  const meetings = c.ledger.present('meetings');
  if (meetings.length > 0) {
    const tokens = await c.deleteTokens();
    for (const m of meetings) {
      if (tokens.length === 0) {
        leave(m, LEFT.noDeleteToken);
        continue;
      }
      const res = await c.withAny(tokens, (t) =>
        c.api.delete(`/v1/meetings/${encodeURIComponent(m.id)}`, { token: t, label: 'cleanup: meeting' }),
      );
      if (res === null || !gone(m, res))
        leave(
          m,
          res?.status === 403
            ? `the run's tokens may not delete it (403 ${res.errorCode ?? ''})`.trim()
            : `DELETE /v1/meetings/{id} answered ${res === null ? 'nothing' : res.status === 0 ? (res.error ?? 'no answer') : res.status}`,
        );
    }
  }
}

/** 5. Simulated devices: through the Control API. */
async function removeDevices(c: Cleanup): Promise<void> {
  for (const d of c.ledger.present('devices')) {
    if (c.control === null || !c.control.has('devices')) {
      leave(d, LEFT.noControl('simulated devices'));
      continue;
    }
    const res = await c.control.client.delete(`/control/devices/${encodeURIComponent(d.id)}`, {
      token: c.target.controlSecret ?? null,
      label: 'cleanup: device',
    });
    if (!gone(d, res)) leave(d, `DELETE /control/devices/{name} answered ${res.status}`);
  }
}

/** 5. Control API tokens: through the Control API, once nothing else needs them. */
async function removeTokens(c: Cleanup): Promise<void> {
  for (const t of c.ledger.present('tokens')) {
    if (c.control === null) {
      leave(t, LEFT.noControl('tokens minted through the Control API'));
      continue;
    }
    const res = await c.control.client.delete(`/control/tokens/${encodeURIComponent(t.id)}`, {
      token: c.target.controlSecret ?? null,
      label: 'cleanup: token',
    });
    if (!gone(t, res)) leave(t, `DELETE /control/tokens/{id} answered ${res.status}`);
  }
}

/** Puts back the settings that differ from those before the run; a restart applies the ones read at startup. */
async function restoreSettings(
  entry: LedgerEntry,
  before: Record<string, unknown>,
  control: ControlDriver | null,
  leave: (e: LedgerEntry, why: string) => void,
): Promise<void> {
  if (control === null || !control.has('settings')) {
    leave(entry, LEFT.noControl('settings'));
    return;
  }
  try {
    const now = (await control.settings()) as unknown as Record<string, unknown>;
    const differ = Object.keys(before).filter((k) => JSON.stringify(now[k]) !== JSON.stringify(before[k]));
    if (differ.length > 0) {
      await control.patchSettings(Object.fromEntries(differ.map((k) => [k, before[k]])));
      if (control.has('restart') && differ.some((k) => k === 'local_webhook_targets' || k === 'lan_enabled')) await control.restart();
    }
    entry.state = 'removed';
  } catch (err) {
    leave(entry, `could not restore them: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function controlClient(target: CleanupTarget, sink: (x: Omit<Exchange, 'seq'>) => Exchange): HttpClient {
  const base = target.control!.client;
  return new HttpClient({
    baseUrl: base.baseUrl,
    channel: 'control',
    secrets: target.secrets,
    sink: () => sink,
    defaultTimeoutMs: base.timeoutMs,
    observe: target.ledger.observeControl,
  });
}

/**
 * Ctrl+C (SIGINT) and SIGTERM during a run: the first stops new checks from
 * starting (`signal`), runs `cleanUp` (the same one the end of the run would
 * use) and exits with the conventional code, 128 + the signal's number; a
 * second exits at once. `dispose` removes the handlers.
 */
export function guardInterrupts(
  cleanUp: () => Promise<void>,
  say: (text: string) => void,
  exit: (code: number) => void = (code) => process.exit(code),
): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const handler = (sig: NodeJS.Signals): void => {
    const code = 128 + (sig === 'SIGINT' ? 2 : 15);
    if (controller.signal.aborted) {
      say(`\n${sig} again: exiting without finishing the cleanup\n`);
      exit(code);
      return;
    }
    controller.abort();
    say(`\n${sig}: no further check starts; removing what the run created on the target (${sig} again exits at once)\n`);
    cleanUp().then(
      () => exit(code),
      (err: unknown) => {
        say(`the cleanup failed: ${err instanceof Error ? err.message : String(err)}\n`);
        exit(code);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
