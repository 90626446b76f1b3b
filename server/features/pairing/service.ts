/**
 * Pairing: a device without a token asks for one (POST /v1/pair/request),
 * a person approves or rejects it in the application (here the Control API),
 * and the device polls (GET /v1/pair/{id}) until it has an answer; the raw
 * token is shown on the first poll after approval and never again.
 * Decisions: docs/decisions/015-pairing.md.
 *
 * Requests live in memory only. They are short-lived (pending ones expire
 * after 10 minutes), and an approved request holds the raw token until the
 * device collects it: keeping that in memory means a raw token never
 * touches the disk (the tokens table stores hashes only). A restart drops
 * every request, as it drops undelivered webhook events.
 *
 * Expiry and forgetting happen lazily, on each call, from the clock: no timer
 * to stop at restart.
 *
 * Abuse limits (both routes need no token): at most 10 requests per minute
 * from one remote address, and at most 20 pending requests in all; and at
 * most 30 polls of unknown ids per minute from one address, after which
 * every poll from it is refused until the window frees a place (answering a
 * known id then would tell a guesser which guess was right). Past any of
 * them, 429 too_many_requests with Retry-After. An IPv6 address counts by
 * its /64, the block one machine or one LAN gets, so rotating through
 * addresses of one network does not multiply the allowance.
 * Decisions: 015-pairing.md, 022-host-origin-and-secrets.md.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../adapters/clock.ts';
import { ApiError } from '../../kernel/errors.ts';
import { parseScopes, type Scope } from '../../kernel/scopes.ts';
import type { TokensRepo } from '../../kernel/store/tokens-repo.ts';
import { defineStateMachine, transition } from '../../kernel/state-machine.ts';

export const PAIRING_STATES = ['pending', 'approved', 'rejected', 'expired'] as const;
export type PairingState = (typeof PAIRING_STATES)[number];

const PAIRING_EVENTS = [
  'approve', // the application approved it (Control API)
  'reject', // the application rejected it (Control API)
  'expire', // nobody answered before expires_at
] as const;

/** Only a pending request moves; every end is final (answering an ended one is 409 conflict). */
export const PAIRING_MACHINE = defineStateMachine({
  name: 'pairing',
  states: PAIRING_STATES,
  events: PAIRING_EVENTS,
  rows: [
    { from: ['pending'], on: 'approve', to: 'approved' },
    { from: ['pending'], on: 'reject', to: 'rejected' },
    { from: ['pending'], on: 'expire', to: 'expired' },
  ],
});

export const PAIRING_LIMITS = {
  /** A pending request expires after this long. */
  pendingTtlMs: 10 * 60_000,
  /** An ended request (approved, rejected, expired) can still be polled this long, then it is forgotten (404). */
  endedRetentionMs: 60 * 60_000,
  /** Requests per remote address per window. */
  perAddress: 10,
  windowMs: 60_000,
  /** Pending requests in all. */
  maxPending: 20,
  /** Polls of unknown ids per remote address per window (a legitimate device polls only its own id). */
  pollMissesPerAddress: 30,
  /** Records kept at most (ended ones are forgotten oldest first past this). */
  maxRecords: 1000,
} as const;

/**
 * The scopes a paired device may be granted: the four, minus delete, which a
 * paired device never holds (API.md, Authentication 2).
 */
export function pairableScopes(values: readonly unknown[]): Scope[] {
  return parseScopes(values).filter((s) => s !== 'delete');
}

export interface PairingRecord {
  id: string;
  client_name: string;
  /** What the device asked for, parsed (unknown names and delete dropped). */
  scopes: Scope[];
  state: PairingState;
  created_at: string;
  expires_at: string;
  /** When it was approved, rejected or expired. */
  ended_at: string | null;
  /** Approved: the minted token's id, and the raw token until the first poll collects it. */
  token_id: string | null;
  granted: Scope[] | null;
  rawToken: string | null;
}

// ── DTOs: a pairing on the wire, to the device (API) and to the application (Control API) ──

function statusFields(record: PairingRecord) {
  return {
    pairing_id: record.id,
    state: record.state,
    client_name: record.client_name,
    scopes: record.scopes,
    expires_at: record.expires_at,
  };
}

function pollUrl(id: string): string {
  return `/v1/pair/${id}`;
}

/** The answer to POST /v1/pair: the request and where to poll it. */
export function pairingRequestDto(record: PairingRecord) {
  return { ...statusFields(record), poll_url: pollUrl(record.id) };
}

/** The answer to a poll: the raw token on the first poll after approval only. */
export function pairingPollDto(record: PairingRecord, token: string | null) {
  return {
    ...statusFields(record),
    granted_scopes: record.granted,
    token_id: record.token_id,
    ...(token !== null ? { token } : {}),
  };
}

/** A pairing as the application sees it: never the raw token. */
export function controlPairingView(record: PairingRecord) {
  return {
    id: record.id,
    client_name: record.client_name,
    scopes: record.scopes,
    state: record.state,
    created_at: record.created_at,
    expires_at: record.expires_at,
    granted_scopes: record.granted,
    token_id: record.token_id,
  };
}

export interface PollResult {
  record: PairingRecord;
  /** The raw token, on the first poll after approval only. */
  token: string | null;
}

export class PairingService {
  readonly #clock: Clock;
  readonly #tokens: TokensRepo;
  readonly #records = new Map<string, PairingRecord>();
  /** Request times per remote address, within the window. */
  readonly #recent = new Map<string, number[]>();
  /** Times of polls of unknown ids per remote address, within the window. */
  readonly #misses = new Map<string, number[]>();

  constructor(opts: { clock: Clock; tokens: TokensRepo }) {
    this.#clock = opts.clock;
    this.#tokens = opts.tokens;
  }

  request(input: { client_name: string; scopes: readonly unknown[] }, remoteAddress: string): PairingRecord {
    const now = this.#clock.now().getTime();
    this.#sweep(now);
    const scopes = pairableScopes(input.scopes);
    if (scopes.length === 0) {
      throw new ApiError(
        'invalid_request',
        'scopes must name at least one of read, record, write (delete is never granted to a paired device)',
      );
    }

    const address = normaliseAddress(remoteAddress);
    const times = (this.#recent.get(address) ?? []).filter((t) => t > now - PAIRING_LIMITS.windowMs);
    if (times.length >= PAIRING_LIMITS.perAddress) {
      const wait = Math.ceil(((times[0] ?? now) + PAIRING_LIMITS.windowMs - now) / 1000);
      throw tooMany(`at most ${PAIRING_LIMITS.perAddress} pairing requests per minute from one address`, wait);
    }
    const pending = [...this.#records.values()].filter((r) => r.state === 'pending');
    if (pending.length >= PAIRING_LIMITS.maxPending) {
      const soonest = Math.min(...pending.map((r) => Date.parse(r.expires_at)));
      throw tooMany(`${PAIRING_LIMITS.maxPending} pairing requests are already waiting for an answer`, Math.ceil((soonest - now) / 1000));
    }
    times.push(now);
    this.#recent.set(address, times);

    const record: PairingRecord = {
      id: `pair_${randomBytes(24).toString('base64url')}`,
      client_name: input.client_name,
      scopes,
      state: 'pending',
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + PAIRING_LIMITS.pendingTtlMs).toISOString(),
      ended_at: null,
      token_id: null,
      granted: null,
      rawToken: null,
    };
    this.#records.set(record.id, record);
    return record;
  }

  /**
   * GET /v1/pair/{id}: 404 when unknown or forgotten. Hands out the raw token
   * once. An address that has polled too many unknown ids is refused (429)
   * whatever it polls, before the id is looked at.
   */
  poll(id: string, remoteAddress = 'unknown'): PollResult {
    const now = this.#clock.now().getTime();
    this.#sweep(now);
    const address = normaliseAddress(remoteAddress);
    const misses = this.#misses.get(address) ?? [];
    if (misses.length >= PAIRING_LIMITS.pollMissesPerAddress) {
      const wait = Math.ceil(((misses[0] ?? now) + PAIRING_LIMITS.windowMs - now) / 1000);
      throw tooMany(`at most ${PAIRING_LIMITS.pollMissesPerAddress} polls of unknown pairing ids per minute from one address`, wait);
    }
    const record = this.#records.get(id);
    if (record === undefined) {
      misses.push(now);
      this.#misses.set(address, misses);
      throw new ApiError('not_found', 'no pairing request with this id (it may have been forgotten after it ended)');
    }
    const token = record.rawToken;
    record.rawToken = null;
    return { record, token };
  }

  /** The application's list (Control API): pending, approved and rejected requests, oldest first. */
  list(): PairingRecord[] {
    this.#sweep(this.#clock.now().getTime());
    return [...this.#records.values()].filter((r) => r.state !== 'expired');
  }

  /**
   * Approves a pending request and mints its token (origin paired, kind
   * standard, named after the client). `scopes` may narrow what was asked,
   * never widen it; delete is never granted. 404 unknown, 409 not pending,
   * 422 when nothing grantable is left.
   */
  approve(id: string, scopes?: readonly unknown[]): PairingRecord {
    const { record, next } = this.#answerable(id, 'approve');
    const granted = scopes === undefined ? record.scopes : pairableScopes(scopes).filter((s) => record.scopes.includes(s));
    if (granted.length === 0) {
      throw new ApiError('invalid_request', `scopes must keep at least one of what the device asked for (${record.scopes.join(', ')})`);
    }
    const now = this.#clock.now();
    const { token, record: tokenRecord } = this.#tokens.create(
      { name: record.client_name, scopes: granted, origin: 'paired', kind: 'standard' },
      now,
    );
    record.state = next;
    record.ended_at = now.toISOString();
    record.token_id = tokenRecord.id;
    record.granted = tokenRecord.scopes;
    record.rawToken = token;
    return record;
  }

  reject(id: string): PairingRecord {
    const { record, next } = this.#answerable(id, 'reject');
    record.state = next;
    record.ended_at = this.#clock.now().toISOString();
    return record;
  }

  /** The request and the state the answer moves it to: 404 unknown, 409 when the table refuses (it is no longer pending). */
  #answerable(id: string, event: 'approve' | 'reject'): { record: PairingRecord; next: PairingState } {
    this.#sweep(this.#clock.now().getTime());
    const record = this.#records.get(id);
    if (record === undefined) throw new ApiError('not_found', 'no pairing request with this id');
    const next = transition(PAIRING_MACHINE, record.state, event);
    if (next === null) throw new ApiError('conflict', `this pairing request is ${record.state}, not pending`);
    return { record, next };
  }

  /** Expires pending requests past their time, forgets ended ones past retention, keeps the map bounded. */
  #sweep(now: number): void {
    for (const record of this.#records.values()) {
      const expired = transition(PAIRING_MACHINE, record.state, 'expire');
      if (expired !== null && Date.parse(record.expires_at) <= now) {
        record.state = expired;
        record.ended_at = record.expires_at;
      }
    }
    for (const [id, record] of this.#records) {
      if (record.ended_at !== null && Date.parse(record.ended_at) + PAIRING_LIMITS.endedRetentionMs <= now) this.#forget(id, record);
    }
    if (this.#records.size > PAIRING_LIMITS.maxRecords) {
      for (const [id, record] of this.#records) {
        if (this.#records.size <= PAIRING_LIMITS.maxRecords) break;
        if (record.state !== 'pending') this.#forget(id, record);
      }
    }
    for (const window of [this.#recent, this.#misses]) {
      for (const [address, times] of window) {
        const kept = times.filter((t) => t > now - PAIRING_LIMITS.windowMs);
        if (kept.length === 0) window.delete(address);
        else window.set(address, kept);
      }
    }
  }

  /** A token nobody collected is deleted with its request: nobody could ever present it. */
  #forget(id: string, record: PairingRecord): void {
    if (record.rawToken !== null && record.token_id !== null) this.#tokens.delete(record.token_id);
    this.#records.delete(id);
  }
}

/** The key a remote address is limited under: IPv4 as is (IPv4-mapped IPv6 folded), IPv6 by its /64. */
export function normaliseAddress(address: string): string {
  if (address.startsWith('::ffff:') && address.includes('.')) return address.slice(7);
  if (!address.includes(':')) return address;
  const groups = expandIpv6(address.split('%')[0] ?? address);
  if (groups === null) return address;
  if (groups.slice(0, 7).every((g) => g === 0) && groups[7] === 1) return '::1';
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, or null when it is not one. */
function expandIpv6(text: string): number[] | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parse = (part: string | undefined) => (part === undefined || part === '' ? [] : part.split(':'));
  const head = parse(halves[0]);
  const tail = parse(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const all = [...head, ...Array.from({ length: halves.length === 1 ? 0 : missing }, () => '0'), ...tail];
  if (!all.every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return null;
  return all.map((g) => parseInt(g, 16));
}

function tooMany(message: string, retryAfterSeconds: number): ApiError {
  const seconds = Math.max(1, retryAfterSeconds);
  return new ApiError('too_many_requests', `${message}; try again in ${seconds} s`, { 'Retry-After': String(seconds) });
}
