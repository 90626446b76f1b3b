/**
 * What a check gets: the API client, the Control API driver, tokens,
 * fixtures, the webhook receiver, properties (fast-check), and the grading
 * calls that record Expected vs Actual against a clause.
 */
import fc from 'fast-check';
import { clause as clauseOf, specChoice } from '../catalog.ts';
import type { Attempt, Failure, Observation, PropertyRun } from '../runner/result.ts';
import { SCOPES, type Scope } from '../spec/constants.ts';
import type { CheckInfo } from './check-types.ts';
import type { BoundClient, Environment, FixtureHost } from './context-types.ts';
import type { ControlDriver, MintSpec, MintedToken, TokenKind, TokenOrigin } from './control.ts';
import type { Delivery, Exchange } from './exchange.ts';
import type { Verdict } from './expect.ts';
import { show } from './expect.ts';
import { Fixtures } from './fixtures.ts';
import { fnv1a } from './hash.ts';
import { HttpClient } from './http.ts';
import type { ExchangeSink, HttpResult, RequestOptions } from './http.ts';
import type { Endpoint, Receiver, Reply } from './receiver.ts';
import { describeRequest } from './token-pool.ts';
import type { PoolToken, TokenRequest } from './token-pool.ts';
import { SkipSignal, StopCheck } from './signals.ts';

/** A check keeps this many exchanges in its report; the rest are counted. */
const MAX_EXCHANGES = 400;

/** Thrown inside a property when an expectation fails; carries the failure. */
export class PropertyMismatch extends Error {
  readonly failure: Omit<Failure, 'property'>;
  constructor(failure: Omit<Failure, 'property'>) {
    super(`${failure.clause}: ${failure.what}: expected ${failure.expected.join(' or ')}, got ${failure.actual}`);
    this.name = 'PropertyMismatch';
    this.failure = failure;
  }
}

/** The seed of one property: stable for a given run seed, check and property name. */
function propertySeed(runSeed: number, checkId: string, name: string): number {
  return (fnv1a(`${checkId}#${name}`) ^ runSeed) | 0;
}

type Source = HttpResult | Exchange | undefined;

export class CheckContext implements FixtureHost {
  readonly check: CheckInfo;
  readonly env: Environment;
  readonly api: HttpClient;
  readonly fixtures: Fixtures;
  readonly attempt: Attempt;
  #closed = false;
  #capture: Exchange[] | null = null;
  #inProperty = false;
  #tokenCache = new Map<string, MintedToken>();
  #poolHeld = new Map<string, PoolToken>();
  #endpoints: Endpoint[] = [];
  #seq = 0;
  /** This attempt's exchanges (a verdict may carry another check's, copied here by the manifest audits). */
  #recorded = new WeakSet<Exchange>();
  /** The bodies curl lines leave out, until a failure takes one (then written beside a JSON report). */
  #omittedBodies = new WeakMap<Exchange, Uint8Array>();
  /** The last exchange recorded, and the last on the API: what a failure naming none falls back to. */
  #last: { any?: Exchange; api?: Exchange } = {};

  constructor(check: CheckInfo, env: Environment) {
    this.check = check;
    this.env = env;
    this.attempt = {
      outcome: 'PASS',
      startedAt: new Date().toISOString(),
      durationMs: 0,
      completed: false,
      failures: [],
      observations: [],
      notes: [],
      properties: [],
      exchanges: [],
      exchangesOmitted: 0,
      deliveries: [],
    };
    const audit = env.exchangeAudit;
    const ledger = env.ledger;
    this.api = new HttpClient({
      baseUrl: env.baseUrl,
      channel: 'api',
      secrets: env.secrets,
      sink: () => this.#sink,
      defaultTimeoutMs: env.requestTimeoutMs,
      observe: (r: HttpResult, method: string, url: string) => {
        if (r.exchange.seq !== 0) audit?.add(check.id, method, url, r);
        ledger?.observeApi(r, method, url);
      },
      ...(ledger === undefined ? {} : { stopped: ledger.stopped }),
    });
    this.fixtures = new Fixtures(this);
  }

  readonly #sink: ExchangeSink = (partial, omittedBody) => {
    if (this.#closed) throw new Error('the check ran out of time; its remaining requests were cancelled');
    this.#seq += 1;
    const exchange: Exchange = { seq: this.#seq, ...partial };
    this.#recorded.add(exchange);
    if (omittedBody !== undefined) this.#omittedBodies.set(exchange, omittedBody);
    this.#last = { any: exchange, api: exchange.channel === 'api' ? exchange : this.#last.api };
    if (this.attempt.exchanges.length < MAX_EXCHANGES) this.attempt.exchanges.push(exchange);
    else this.attempt.exchangesOmitted += 1;
    this.#capture?.push(exchange);
    return exchange;
  };

  /** Where the shared Control API client records while this check runs. */
  get sink(): ExchangeSink {
    return this.#sink;
  }

  /** Called by the runner when the attempt ends or times out. */
  close(): void {
    this.#closed = true;
    for (const ep of this.#endpoints)
      for (const d of ep.deliveries) if (!this.attempt.deliveries.includes(d)) this.attempt.deliveries.push(d);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The run's seed for this check (fixtures derive their random data from it). */
  get seed(): number {
    return propertySeed(this.env.seed, this.check.id, '');
  }

  // ------------------------------------------------------------ preconditions

  skip(reason: string): never {
    throw new SkipSignal(reason);
  }

  /**
   * A premise of the verdict: a setup step, or a behaviour the spec does not
   * fix (or another check grades). When it does not hold the check is
   * SKIPPED with the reason, never FAILed under a clause it does not test
   * (docs/decisions/040-conformance-premises.md).
   */
  premise(what: string, v: Verdict, source?: Source): void {
    if (v.ok) return;
    const exchange = source === undefined ? undefined : 'exchange' in source ? source.exchange : source;
    this.skip(
      `premise not met: ${what}: expected ${v.expected.join(' or ')}, got ${v.actual}${exchange === undefined ? '' : ` (exchange ${exchange.seq})`}`,
    );
  }

  /** The Control API driver, or SKIPPED when there is none. */
  get control(): ControlDriver {
    if (this.env.control === null) this.skip(`needs the Control API: ${this.env.controlMissing}`);
    // The Control API driver records its exchanges into this check.
    return this.env.control;
  }

  has(capability: Parameters<ControlDriver['has']>[0]): boolean {
    return this.env.control?.has(capability) ?? false;
  }

  /**
   * A token holding at least these scopes (default all four): minted through the
   * Control API when it can, else taken from the tokens handed to the run
   * (--token, --tokens). A check that needs tokens of several descriptions
   * (need 'tokens') gets exactly the scopes it names, since it may test what a
   * token cannot do; any other check takes a token holding at least them.
   */
  async token(scopes: readonly Scope[] = SCOPES, options: { origin?: TokenOrigin; kind?: TokenKind } = {}): Promise<string> {
    if (this.has('tokens')) return (await this.mint({ scopes, ...options })).token;
    return this.#fromPool({ scopes, ...options }, this.check.needs.includes('tokens'), '').token;
  }

  /**
   * Mints a token through the Control API (cached per spec within the attempt);
   * without its 'tokens' capability, takes one of exactly this description
   * from the tokens handed to the run, or the check is SKIPPED naming it.
   */
  async mint(spec: MintSpec): Promise<MintedToken> {
    const key = JSON.stringify([[...spec.scopes].sort(), spec.origin ?? 'loopback', spec.kind ?? 'standard', spec.name ?? '']);
    const cached = this.#tokenCache.get(key);
    if (cached !== undefined) return cached;
    let minted: MintedToken;
    if (this.has('tokens')) {
      minted = await this.control.mintToken({ ...spec, name: spec.name ?? `conformance ${this.check.id}` });
      this.env.tokenUse?.record(spec, this.check.id, 'minted (Control API)');
    } else minted = this.#fromPool(spec, true, spec.name ?? '');
    this.#tokenCache.set(key, minted);
    return minted;
  }

  /**
   * A token for setting up data (a meeting made by import, say), holding at
   * least these scopes: minted when the Control API can, else any pooled token
   * that covers them, whatever exact tokens the check itself asks for.
   */
  async fixtureToken(scopes: readonly Scope[]): Promise<string> {
    if (this.has('tokens')) return (await this.mint({ scopes })).token;
    // Not held as one of the check's own tokens: an owner the check needs must stay free for it.
    const t = this.env.tokenPool?.find({ scopes }, false) ?? null;
    if (t === null) return this.#fromPool({ scopes }, false, 'fixture').token; // SKIPPED with the description named
    this.env.tokenUse?.record({ scopes }, this.check.id, t.source);
    return t.token;
  }

  /** A token of the pool (harness/token-pool.ts); distinct holders (mint names) of one description get distinct tokens. */
  #fromPool(request: TokenRequest, exact: boolean, holder: string): MintedToken {
    // Keyed by what the token holds (['admin'] and [] are one description), so one holder keeps one token.
    const key = JSON.stringify([describeRequest(request), exact, holder]);
    const held = this.#poolHeld.get(key);
    if (held !== undefined) return { token: held.token, token_id: held.tokenId, scopes: [...held.scopes] };
    // With exact descriptions, every holder is its own owner (as minted tokens would be): a token already handed
    // out under another holder is not handed out again. "At least" requests may share one token.
    const taken = exact ? new Set([...this.#poolHeld.entries()].filter(([k]) => k !== key).map(([, t]) => t.token)) : new Set<string>();
    const t = this.env.tokenPool?.find(request, exact, taken) ?? null;
    if (t === null) {
      this.env.tokenUse?.record(request, this.check.id, null);
      const another = this.env.tokenPool?.find(request, exact) !== null && this.env.tokenPool !== undefined && this.env.tokenPool !== null;
      this.skip(
        `needs ${another ? 'one more token (besides those already used by this check) ' : 'a token '}of ${exact ? 'exactly' : 'at least'} ${describeRequest(request)}: give --control-url with the 'tokens' capability, or ${exact ? 'a --tokens file holding one' : 'a --token or --tokens file holding one'} (conformance/README.md, "Without a Control API")`,
      );
    }
    this.#poolHeld.set(key, t);
    this.env.tokenUse?.record(request, this.check.id, t.source);
    return { token: t.token, token_id: t.tokenId, scopes: [...t.scopes] };
  }

  /** Mints a fresh token every time (no cache): for tokens a check disables or deletes. */
  async mintFresh(spec: MintSpec): Promise<MintedToken> {
    return this.control.mintToken({ ...spec, name: spec.name ?? `conformance ${this.check.id}` });
  }

  as(token: string): BoundClient {
    const with_ = (o: RequestOptions | undefined): RequestOptions => ({ token, ...(o ?? {}) });
    return {
      token,
      get: (p, o) => this.api.get(p, with_(o)),
      post: (p, o) => this.api.post(p, with_(o)),
      put: (p, o) => this.api.put(p, with_(o)),
      patch: (p, o) => this.api.patch(p, with_(o)),
      delete: (p, o) => this.api.delete(p, with_(o)),
      request: (m, p, o) => this.api.request(m, p, with_(o)),
    };
  }

  /** The webhook receiver, or SKIPPED with the reason it cannot be used. */
  async receiver(): Promise<Receiver> {
    const r = await this.env.receiver();
    if ('missing' in r) this.skip(r.missing);
    return r;
  }

  /** A receiver endpoint whose deliveries go into this check's report. */
  async endpoint(name: string, replies?: Reply | Reply[]): Promise<Endpoint> {
    const ep = (await this.receiver()).endpoint(name, replies);
    this.#endpoints.push(ep);
    return ep;
  }

  /** API exchanges of the checks that ran before this one. */
  get runLog(): readonly Exchange[] {
    return this.env.runLog;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((r) => setTimeout(r, ms));
  }

  // ------------------------------------------------------------ grading

  #failure(
    clauses: string | readonly string[],
    what: string,
    v: Verdict,
    source: Source,
    severity: Failure['severity'],
    alternative?: string,
  ): Failure[] {
    const ids = typeof clauses === 'string' ? [clauses] : clauses;
    for (const id of ids) this.#own(id);
    // The curl line repeats the request the verdict rests on: the response an expect helper judged, else
    // the source the check names, else (said so) the check's last request (docs/decisions/076-ci-reports.md).
    const named =
      v.exchange !== undefined && this.#recorded.has(v.exchange)
        ? v.exchange
        : source === undefined
          ? undefined
          : 'exchange' in source
            ? source.exchange
            : source;
    const exchange = named ?? this.#last.api ?? this.#last.any;
    if (named !== undefined) named.failed = [...new Set([...(named.failed ?? []), ...ids])];
    const body = exchange === undefined ? undefined : this.#omittedBodies.get(exchange);
    return ids.map((id) => ({
      clause: id,
      requirement: clauseOf(id).statement,
      what,
      expected: v.expected,
      actual: v.actual,
      severity,
      ...(alternative === undefined ? {} : { alternative }),
      ...(exchange === undefined ? {} : { exchange: exchange.seq, curl: exchange.curl }),
      ...(exchange !== undefined && named === undefined ? { lastExchange: true as const } : {}),
      ...(body === undefined ? {} : { requestBody: Buffer.from(body).toString('base64') }),
    }));
  }

  /** A check grades only the clauses it lists (so reports and lint agree). */
  #own(id: string): void {
    clauseOf(id);
    if (!this.check.clauses.includes(id))
      throw new Error(`check ${this.check.id} grades clause ${id}, which its clauses list does not name`);
  }

  #record(failures: Failure[]): void {
    if (this.#inProperty) throw new PropertyMismatch(failures[0]!);
    this.attempt.failures.push(...failures);
  }

  /**
   * Records a failed verdict against the clause(s) and goes on (a soft
   * expectation). Inside a property it fails the property run instead.
   * Returns whether the verdict held.
   */
  expect(clauses: string | readonly string[], what: string, v: Verdict, source?: Source): boolean {
    if (v.ok) return true;
    this.#record(this.#failure(clauses, what, v, source, 'fail'));
    return false;
  }

  /** Like expect, but a failure stops the check (later steps depend on it). */
  require(clauses: string | readonly string[], what: string, v: Verdict, source?: Source): void {
    if (!this.expect(clauses, what, v, source)) throw new StopCheck();
  }

  /**
   * Grades a conflict clause. `matched` is the index in the clause's
   * alternatives of the behaviour observed, or null for none of them.
   * The spec's choice (or any alternative, when the spec does not choose)
   * passes; another alternative is NON_STRICT; none is FAIL.
   */
  conflict(clauseId: string, what: string, matched: number | null, actual: string, source?: Source): void {
    const c = clauseOf(clauseId);
    const alternatives = c.alternatives ?? [];
    const choice = specChoice(c);
    const v: Verdict = { ok: false, expected: choice === null ? alternatives : [choice], actual };
    const observed = matched === null ? undefined : alternatives[matched];
    if (observed === undefined) {
      this.#record(this.#failure(clauseId, what, { ...v, expected: alternatives }, source, 'fail'));
      return;
    }
    if (choice === null || observed === choice) {
      this.observe(clauseId, what, `${actual} → "${observed}"`, source);
      return;
    }
    this.#record(this.#failure(clauseId, what, v, source, 'non_strict', observed));
  }

  /** Records what the target did (gaps; remarks). Never fails. */
  observe(clauseId: string, what: string, actual: string, source?: Source): void {
    this.#own(clauseId);
    const exchange = source === undefined ? undefined : 'exchange' in source ? source.exchange : source;
    const o: Observation = {
      clause: clauseId,
      what,
      actual,
      ...(exchange === undefined ? {} : { exchange: exchange.seq, curl: exchange.curl }),
    };
    this.attempt.observations.push(o);
  }

  note(text: string): void {
    this.attempt.notes.push(text);
  }

  // ------------------------------------------------------------ properties

  /** numRuns for a property: --runs, scaled (e.g. 0.5 for an expensive one), at least 1. */
  runs(scale = 1): number {
    return Math.max(1, Math.round(this.env.runs * scale));
  }

  /**
   * Runs a fast-check property against the target. Inside `predicate`,
   * ctx.expect fails the run; fast-check then shrinks to a minimal
   * counterexample, and the failure carries the seed, the path and the
   * exchanges of that counterexample. Returns whether it held.
   */
  async property<T>(
    name: string,
    arbitrary: fc.Arbitrary<T>,
    predicate: (value: T) => Promise<void>,
    options: { runs?: number; examples?: T[]; timeLimitMs?: number } = {},
  ): Promise<boolean> {
    if (this.#inProperty) throw new Error('properties cannot be nested');
    const replay = this.env.replay?.[name];
    const seed = replay?.seed ?? propertySeed(this.env.seed, this.check.id, name);
    const numRuns = options.runs ?? this.runs();
    let lastFailure: { mismatch: PropertyMismatch; exchanges: Exchange[] } | null = null;
    // A ctx.skip inside the predicate (e.g. a time budget that ran out in a state allowed on the way,
    // decision 081) is not a counterexample: it is kept, the remaining runs do nothing, and the check
    // is SKIPPED after fast-check returns (a failure found before it is still reported first).
    let skipped: SkipSignal | null = null;
    const prop = fc.asyncProperty(arbitrary, async (value) => {
      if (skipped !== null) return;
      const captured: Exchange[] = [];
      this.#capture = captured;
      this.#inProperty = true;
      try {
        await predicate(value);
      } catch (err) {
        if (err instanceof SkipSignal) {
          skipped = err;
          return;
        }
        if (err instanceof PropertyMismatch) lastFailure = { mismatch: err, exchanges: captured };
        throw err;
      } finally {
        this.#inProperty = false;
        this.#capture = null;
      }
    });
    const details = await fc.check(prop, {
      seed,
      numRuns,
      ...(replay?.path === undefined ? {} : { path: replay.path }),
      // Examples come first in fast-check's run order, so a replayed path needs them too.
      ...(options.examples === undefined ? {} : { examples: options.examples.map((e) => [e] as [T]) }),
      interruptAfterTimeLimit: options.timeLimitMs ?? 120_000,
      markInterruptAsFailure: false,
    });
    const run: PropertyRun = {
      name,
      seed: details.seed,
      numRuns: details.numRuns,
      failed: details.failed,
      ...(details.failed && details.counterexamplePath !== null ? { path: details.counterexamplePath } : {}),
      ...(details.failed && details.counterexample !== null ? { counterexample: fc.stringify(details.counterexample[0]) } : {}),
      ...(details.failed ? { shrinks: details.numShrinks } : {}),
      replay: this.env.replayHint(this.check.id),
    };
    if (details.interrupted) this.note(`property "${name}" stopped at its time limit after ${details.numRuns} runs`);
    this.attempt.properties.push(run);
    const skip = skipped as SkipSignal | null;
    if (!details.failed) {
      if (skip !== null) throw skip;
      return true;
    }
    const err = details.errorInstance;
    const failure = lastFailure as { mismatch: PropertyMismatch; exchanges: Exchange[] } | null;
    if (err instanceof PropertyMismatch && failure !== null) {
      this.attempt.failures.push({
        ...failure.mismatch.failure,
        what: `${failure.mismatch.failure.what} [property "${name}"]`,
        property: run,
        exchanges: failure.exchanges,
      });
      if (skip !== null) throw skip;
      return false;
    }
    // Not an expectation: the harness (or the check) broke inside the property.
    const e = err instanceof Error ? err : new Error(show(err));
    e.message = `property "${name}" (seed ${run.seed}, path ${run.path ?? '?'}, counterexample ${run.counterexample ?? '?'}): ${e.message}`;
    throw e;
  }

  /** Deliveries recorded so far by this check's receiver endpoints. */
  deliveries(): Delivery[] {
    return this.#endpoints.flatMap((e) => e.deliveries);
  }
}
