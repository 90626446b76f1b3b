/**
 * The run's ledger: what the suite created on the target (meetings, jobs,
 * webhooks, pairing requests, recordings, Control API tokens and devices),
 * recorded where the harness's HTTP clients see a creating request succeed,
 * so that no check can forget to declare what it made. runner/cleanup.ts
 * removes what the run's tokens allow at the end of the run (and on Ctrl+C);
 * the summary says, per kind, "created N, removed M, left K (why)"
 * (docs/decisions/075-conformance-leaves-the-target-as-found.md).
 *
 * The ledger also follows what removes things besides the cleanup: a check's
 * own DELETE (a later 404 is then no error), a Control API token deleted or
 * disabled by a check (a webhook it owns can no longer be deleted with it),
 * and a Control API reset, which erases everything made before it.
 */
import { JOB_TERMINAL_STATES } from '../spec/constants.ts';
import type { HttpResult } from './http.ts';

const LEDGER_KINDS = ['settings', 'meetings', 'jobs', 'webhooks', 'pairings', 'recordings', 'devices', 'tokens'] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

/** present: on the target as far as the run knows; the others say what removed it, or why it stays. */
export type EntryState = 'present' | 'deleted-by-check' | 'erased-by-reset' | 'removed' | 'left';

export interface LedgerEntry {
  kind: LedgerKind;
  /** The id on the target (a device: its name). */
  id: string;
  /** Made through the Automation API or the Control API. */
  via: 'api' | 'control';
  /** The bearer token of the creating request (API only; never reported): the owner of a webhook. */
  creator?: string;
  /** An import job: its meeting is the run's too once it has one. */
  importJob?: boolean;
  /** A Control API token: the raw value and scopes, so the cleanup may use it while it lives. */
  token?: { value: string; scopes: string[]; disabled?: boolean };
  state: EntryState;
  /** Why it was left on the target (state left). */
  why?: string;
  /** A remark that does not change the count, e.g. "cancelled". */
  note?: string;
}

/** One kind's line of the summary. */
interface CleanupKind {
  kind: LedgerKind;
  created: number;
  removed: number;
  /** Of removed: by the checks themselves, by a Control API reset, by the cleanup. */
  removedBy: { checks: number; reset: number; cleanup: number };
  left: number;
  /** Why what is left stays, with how many and their ids. */
  leftWhy: Array<{ reason: string; count: number; ids: string[] }>;
  notes?: string[];
}

export interface CleanupSummary {
  /** --keep: nothing was removed on purpose. */
  kept: boolean;
  /** The run was interrupted (SIGINT/SIGTERM) and cleaned up before exiting. */
  interrupted?: boolean;
  kinds: CleanupKind[];
}

export interface ObservedAnswer {
  method: string;
  /** The path below the base URL, without the query. */
  path: string;
  status: number;
  body: unknown;
  /** The request's bearer token, when it had one. */
  bearer?: string;
  requestBody?: string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);
const field = (body: unknown, name: string): unknown =>
  body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>)[name] : undefined;
// 'canceled' too: a target spelling it the American way still ends its job, and the cleanup need not cancel it.
const TERMINAL_JOB_STATES = new Set<string>([...JOB_TERMINAL_STATES, 'canceled']);

export class RunLedger {
  readonly #entries = new Map<string, LedgerEntry>();
  readonly #apiBase: string;
  readonly #controlBase: string | undefined;
  #stopped: string | undefined;
  /**
   * The Control API settings before the run (read once at its start): a run that changes them (a PATCH, or a
   * reset, which puts CONTROL.md's reset settings in place) gets them back from its cleanup.
   */
  settingsBefore: Record<string, unknown> | undefined;

  constructor(apiBaseUrl: string, controlBaseUrl?: string) {
    this.#apiBase = new URL(apiBaseUrl).pathname.replace(/\/+$/, '');
    this.#controlBase = controlBaseUrl === undefined ? undefined : new URL(controlBaseUrl).pathname.replace(/\/+$/, '');
  }

  /**
   * The run was interrupted: the checks' clients send nothing more (HttpClientOptions.stopped), so nothing is
   * created behind the cleanup's back; the cleanup's own clients are not stopped.
   */
  stop(reason: string): void {
    this.#stopped = reason;
  }

  readonly stopped = (): string | undefined => this.#stopped;

  get entries(): LedgerEntry[] {
    return [...this.#entries.values()];
  }

  get(kind: LedgerKind, id: string): LedgerEntry | undefined {
    return this.#entries.get(`${kind}:${id}`);
  }

  /** Records a creation (a second sighting of the same id keeps the first record). */
  add(entry: Omit<LedgerEntry, 'state'> & { state?: EntryState }): LedgerEntry {
    const key = `${entry.kind}:${entry.id}`;
    const seen = this.#entries.get(key);
    if (seen !== undefined) return seen;
    const e: LedgerEntry = { state: 'present', ...entry };
    this.#entries.set(key, e);
    return e;
  }

  /** Everything still on the target as far as the run knows. */
  present(kind?: LedgerKind): LedgerEntry[] {
    return this.entries.filter((e) => e.state === 'present' && (kind === undefined || e.kind === kind));
  }

  /** The observer for an HttpClient of the Automation API (HttpClientOptions.observe). */
  readonly observeApi = (result: HttpResult, method: string, url: string): void => {
    const o = this.#observed(result, method, url, this.#apiBase);
    if (o !== null) this.onApi(o);
  };

  /** The observer for an HttpClient of the Control API. */
  readonly observeControl = (result: HttpResult, method: string, url: string): void => {
    const o = this.#observed(result, method, url, this.#controlBase ?? '');
    if (o !== null) this.onControl(o);
  };

  #observed(result: HttpResult, method: string, url: string, base: string): ObservedAnswer | null {
    // Only answers that may create or remove something, or tell an import job's meeting, are read.
    if (result.status < 200 || result.status >= 300) return null;
    let path = new URL(url).pathname;
    if (base !== '' && path.startsWith(base)) path = path.slice(base.length);
    if (method === 'GET' && !/^\/v1\/(jobs|recording)/.test(path)) return null;
    const auth = result.exchange.request.headers['authorization'];
    const bearer = auth === undefined ? undefined : /^bearer\s+(\S+)$/i.exec(auth)?.[1];
    return {
      method: method.toUpperCase(),
      path,
      status: result.status,
      body: result.body,
      ...(bearer === undefined ? {} : { bearer }),
      ...(result.exchange.request.body === undefined ? {} : { requestBody: result.exchange.request.body }),
    };
  }

  /** An Automation API answer of 2xx (exported for the unit tests). */
  onApi(o: ObservedAnswer): void {
    const creator = o.bearer === undefined ? {} : { creator: o.bearer };
    const seg = o.path.split('/').map((s) => decodeURIComponent(s));
    if (o.method === 'POST' && (o.path === '/v1/jobs/import' || o.path === '/v1/jobs/diarization')) {
      const id = str(field(o.body, 'job_id')) ?? str(field(o.body, 'id'));
      if (id !== undefined)
        this.add({ kind: 'jobs', id, via: 'api', ...creator, ...(o.path.endsWith('import') ? { importJob: true } : {}) });
    } else if (o.method === 'POST' && o.path === '/v1/webhooks') {
      const id = str(field(o.body, 'id'));
      if (id !== undefined) this.add({ kind: 'webhooks', id, via: 'api', ...creator });
    } else if (o.method === 'POST' && o.path === '/v1/pair/request') {
      const id = str(field(o.body, 'pairing_id')) ?? str(field(o.body, 'id'));
      if (id !== undefined) this.add({ kind: 'pairings', id, via: 'api' });
    } else if (o.method === 'POST' && o.path === '/v1/recording/start') {
      const id = str(field(o.body, 'session_id')) ?? 'recording';
      this.add({ kind: 'recordings', id, via: 'api', ...creator });
      this.#recordingMeeting(o.body, creator);
    } else if (seg[1] === 'v1' && seg[2] === 'recording') {
      this.#recordingMeeting(o.body, creator);
    } else if (o.method === 'DELETE' && seg[1] === 'v1' && (seg[2] === 'meetings' || seg[2] === 'webhooks') && seg.length === 4) {
      const e = this.get(seg[2], seg[3]!);
      if (e?.state === 'present') e.state = 'deleted-by-check';
    } else if (o.method === 'GET' && seg[1] === 'v1' && seg[2] === 'jobs') {
      // A job answer (GET /v1/jobs/{id}, or the list) tells the meeting an import of the run made.
      const jobs = seg.length === 3 ? field(o.body, 'jobs') : [o.body];
      if (Array.isArray(jobs)) for (const j of jobs) this.jobSeen(j);
    }
  }

  /** A JobDto: the meeting of one of the run's import jobs is the run's; returns its state when it is one of the run's. */
  jobSeen(job: unknown): string | undefined {
    const id = str(field(job, 'id')) ?? str(field(job, 'job_id'));
    const entry = id === undefined ? undefined : this.get('jobs', id);
    if (entry === undefined) return undefined;
    const meeting = str(field(job, 'meeting_id'));
    if (entry.importJob === true && meeting !== undefined)
      this.add({ kind: 'meetings', id: meeting, via: 'api', ...(entry.creator === undefined ? {} : { creator: entry.creator }) });
    return str(field(job, 'state'));
  }

  /** While one of the run's recordings runs, the meeting it records is the run's. */
  #recordingMeeting(body: unknown, creator: { creator?: string }): void {
    if (this.present('recordings').length === 0) return;
    const id = str(field(body, 'active_meeting_id')) ?? str(field(field(body, 'processing'), 'meeting_id'));
    if (id !== undefined) this.add({ kind: 'meetings', id, via: 'api', ...creator });
  }

  /** A Control API answer of 2xx (exported for the unit tests). */
  onControl(o: ObservedAnswer): void {
    const seg = o.path.split('/').map((s) => decodeURIComponent(s));
    if (seg[1] !== 'control') return;
    if (o.method === 'POST' && o.path === '/control/reset') {
      // CONTROL.md, Reset: meetings, jobs, webhooks, tokens, pairings go; simulated devices are unplugged.
      for (const e of this.#entries.values()) if (e.state === 'present' && e.kind !== 'settings') e.state = 'erased-by-reset';
      this.#settingsChanged();
    } else if (o.method === 'PATCH' && o.path === '/control/settings') {
      this.#settingsChanged();
    } else if (o.method === 'POST' && o.path === '/control/meetings') {
      const id = str(field(o.body, 'id'));
      if (id !== undefined) this.add({ kind: 'meetings', id, via: 'control' });
    } else if (o.method === 'POST' && o.path === '/control/jobs') {
      const id = str(field(o.body, 'id'));
      if (id !== undefined) this.add({ kind: 'jobs', id, via: 'control' });
    } else if (o.method === 'POST' && o.path === '/control/tokens') {
      const id = str(field(o.body, 'token_id'));
      const value = str(field(o.body, 'token'));
      const scopes = field(o.body, 'scopes');
      if (id !== undefined && value !== undefined)
        this.add({ kind: 'tokens', id, via: 'control', token: { value, scopes: Array.isArray(scopes) ? scopes.map(String) : [] } });
    } else if (seg[2] === 'tokens' && seg.length === 4) {
      const e = this.get('tokens', seg[3]!);
      if (e === undefined || e.state !== 'present') return;
      if (o.method === 'DELETE') e.state = 'deleted-by-check';
      else if (o.method === 'PATCH' && e.token !== undefined) e.token.disabled = /"enabled"\s*:\s*false/.test(o.requestBody ?? '');
    } else if (o.method === 'POST' && o.path === '/control/devices') {
      let name: string | undefined;
      try {
        name = str(field(JSON.parse(o.requestBody ?? '') as unknown, 'name'));
      } catch {
        name = undefined;
      }
      if (name !== undefined) {
        // A name unplugged and plugged again is one device on the target.
        const e = this.add({ kind: 'devices', id: name, via: 'control' });
        e.state = 'present';
      }
    } else if (o.method === 'DELETE' && seg[2] === 'devices' && seg.length === 4) {
      const e = this.get('devices', seg[3]!);
      if (e?.state === 'present') e.state = 'deleted-by-check';
    }
  }

  #settingsChanged(): void {
    if (this.settingsBefore === undefined) return;
    this.add({ kind: 'settings', id: 'control settings', via: 'control' }).state = 'present';
  }

  /** The summary of the ledger as it stands (call after the cleanup, or with --keep). */
  summary(options: { kept: boolean; interrupted?: boolean; notes?: Partial<Record<LedgerKind, string[]>> }): CleanupSummary {
    const kinds: CleanupKind[] = [];
    for (const kind of LEDGER_KINDS) {
      const all = this.entries.filter((e) => e.kind === kind);
      const notes = options.notes?.[kind] ?? [];
      if (all.length === 0 && notes.length === 0) continue;
      const count = (s: EntryState): number => all.filter((e) => e.state === s).length;
      const removedBy = { checks: count('deleted-by-check'), reset: count('erased-by-reset'), cleanup: count('removed') };
      const why = new Map<string, string[]>();
      for (const e of all)
        if (e.state === 'left' || e.state === 'present') {
          const reason = e.state === 'left' ? (e.why ?? 'unknown') : options.kept ? 'kept (--keep)' : 'not removed';
          why.set(reason, [...(why.get(reason) ?? []), e.id]);
        }
      kinds.push({
        kind,
        created: all.length,
        removed: removedBy.checks + removedBy.reset + removedBy.cleanup,
        removedBy,
        left: count('left') + count('present'),
        leftWhy: [...why.entries()].map(([reason, ids]) => ({ reason, count: ids.length, ids })),
        ...(notes.length === 0 ? {} : { notes }),
      });
    }
    return { kept: options.kept, ...(options.interrupted === true ? { interrupted: true } : {}), kinds };
  }
}

export function isTerminalJobState(state: string | undefined): boolean {
  return state !== undefined && TERMINAL_JOB_STATES.has(state);
}

/** "meetings: created 3, removed 3, left 0; jobs: created 4, removed 0, left 4 (the API has no delete route for jobs)". */
export function cleanupLine(s: CleanupSummary): string {
  if (s.kinds.length === 0) return `nothing was created on the target${s.kept ? ' (--keep)' : ''}`;
  const parts = s.kinds.map((k) => {
    const by: string[] = [];
    if (k.removedBy.checks > 0) by.push(`${k.removedBy.checks} by the checks`);
    if (k.removedBy.reset > 0) by.push(`${k.removedBy.reset} by a Control API reset`);
    const why = k.leftWhy.map((w) => (k.leftWhy.length === 1 ? w.reason : `${w.count}: ${w.reason}`));
    const notes = k.notes ?? [];
    // Settings are not made and removed but changed and restored.
    const [made, undone] = k.kind === 'settings' ? ['changed', 'restored'] : ['created', 'removed'];
    return (
      `${k.kind}: ${made} ${k.created}, ${undone} ${k.removed}${by.length === 0 ? '' : ` (${by.join(', ')})`}, left ${k.left}` +
      `${why.length === 0 ? '' : ` (${why.join('; ')})`}${notes.length === 0 ? '' : ` [${notes.join('; ')}]`}`
    );
  });
  return `${s.interrupted === true ? 'interrupted, ' : ''}${s.kept ? 'kept on the target (--keep): ' : ''}${parts.join('; ')}`;
}

/** The summaries of several shards' runs as one (runner/merge.ts): counts added per kind, reasons joined. */
export function mergeCleanups(parts: readonly CleanupSummary[]): CleanupSummary {
  const byKind = new Map<LedgerKind, CleanupKind>();
  for (const part of parts)
    for (const k of part.kinds) {
      const into = byKind.get(k.kind);
      if (into === undefined) {
        byKind.set(k.kind, structuredClone(k));
        continue;
      }
      into.created += k.created;
      into.removed += k.removed;
      into.left += k.left;
      into.removedBy.checks += k.removedBy.checks;
      into.removedBy.reset += k.removedBy.reset;
      into.removedBy.cleanup += k.removedBy.cleanup;
      for (const w of k.leftWhy) {
        const same = into.leftWhy.find((x) => x.reason === w.reason);
        if (same === undefined) into.leftWhy.push({ ...w, ids: [...w.ids] });
        else {
          same.count += w.count;
          same.ids.push(...w.ids);
        }
      }
      if (k.notes !== undefined) into.notes = [...(into.notes ?? []), ...k.notes];
    }
  return {
    kept: parts.some((p) => p.kept),
    ...(parts.some((p) => p.interrupted === true) ? { interrupted: true } : {}),
    kinds: LEDGER_KINDS.flatMap((kind) => byKind.get(kind) ?? []),
  };
}
