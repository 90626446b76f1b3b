/**
 * API tokens. Only a SHA-256 hash of each raw token is stored; the raw token
 * exists once, in the response that created it.
 *
 * Lookup hashes the presented token and finds the row by its hash, then
 * compares the two hashes with timingSafeEqual: the time a lookup takes says
 * nothing about how much of a guessed token was right (the index sees only a
 * hash, and a preimage-resistant hash scatters near guesses).
 */
import { hash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { StatementSync } from 'node:sqlite';
import { allRows, type Database } from './database.ts';
import { parseScopes, type Scope } from '../scopes.ts';

export const TOKEN_ORIGINS = ['loopback', 'paired', 'lan'] as const;
export const TOKEN_KINDS = ['standard', 'first_party', 'assistant'] as const;
export type TokenOrigin = (typeof TOKEN_ORIGINS)[number];
export type TokenKind = (typeof TOKEN_KINDS)[number];

export interface TokenRecord {
  id: string;
  name: string;
  scopes: Scope[];
  origin: TokenOrigin;
  kind: TokenKind;
  enabled: boolean;
  created_at: string;
}

export interface NewToken {
  name: string;
  scopes: readonly unknown[];
  origin?: TokenOrigin;
  kind?: TokenKind;
}

interface TokenRow {
  id: string;
  hash: string;
  name: string;
  scopes: string;
  origin: TokenOrigin;
  kind: TokenKind;
  enabled: number;
  created_at: string;
}

/** Raw tokens carry a recognisable prefix so secret scanners can find leaked ones. */
const TOKEN_PREFIX = 'mas_';

function hashToken(raw: string): string {
  // The one-shot crypto.hash: a fraction of createHash().update().digest() for a short input, on every request.
  return hash('sha256', raw, 'hex');
}

/**
 * The effective scopes of a new token (API.md Authentication 2, 4; CONTROL.md
 * Tokens): unknown names parse to nothing; an assistant token's baseline adds
 * read and record; a paired device never holds delete.
 */
function effectiveScopes(requested: readonly unknown[], origin: TokenOrigin, kind: TokenKind): Scope[] {
  const wanted: unknown[] = [...requested];
  if (kind === 'assistant') wanted.push('read', 'record');
  const parsed = parseScopes(wanted);
  return origin === 'paired' ? parsed.filter((s) => s !== 'delete') : parsed;
}

/** Bound on the cache of known tokens (there are a handful in practice). */
const KNOWN_TOKENS_MAX = 1024;

export class TokensRepo {
  readonly #db: Database;
  /** Prepared once: authenticate() runs on every request. */
  readonly #byHash: StatementSync;
  /**
   * Tokens already found, by hash → the frozen record: authenticate() runs on
   * every request, and a SQLite lookup plus a JSON parse of the scopes was the
   * largest cost of an authenticated call. Only hits are kept (unknown bearer
   * values cannot fill it). Every write below clears it, so a revoked,
   * disabled or rotated token is refused from the very next request; this
   * repo is the only writer of the table (a restart builds a new repo).
   */
  readonly #known = new Map<string, Readonly<TokenRecord>>();

  constructor(db: Database) {
    this.#db = db;
    this.#byHash = db.prepare('SELECT * FROM tokens WHERE hash = ?');
  }

  create(input: NewToken, now: Date): { token: string; record: TokenRecord } {
    const origin = input.origin ?? 'loopback';
    const kind = input.kind ?? 'standard';
    const raw = TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const record: TokenRecord = {
      id: `tok_${randomUUID()}`,
      name: input.name,
      scopes: effectiveScopes(input.scopes, origin, kind),
      origin,
      kind,
      enabled: true,
      created_at: now.toISOString(),
    };
    this.#db
      .prepare('INSERT INTO tokens (id, hash, name, scopes, origin, kind, enabled, created_at) VALUES (?, ?, ?, ?, ?, ?, 1, ?)')
      .run(record.id, hashToken(raw), record.name, JSON.stringify(record.scopes), origin, kind, record.created_at);
    this.#known.clear();
    return { token: raw, record };
  }

  /**
   * The token a raw bearer value stands for, or null. The record is frozen
   * and shared between requests (no copy per call).
   *
   * A cache hit is found by the full hash of the presented value, so it says
   * no more about the stored hashes than the index lookup below does; the
   * row the index finds is compared in constant time before it is cached.
   */
  authenticate(raw: string): Readonly<TokenRecord> | null {
    const presented = hashToken(raw);
    const known = this.#known.get(presented);
    if (known !== undefined) return known;
    const row = this.#byHash.get(presented) as TokenRow | undefined;
    if (row === undefined || !timingSafeEqual(Buffer.from(row.hash, 'hex'), Buffer.from(presented, 'hex'))) return null;
    const record = toRecord(row);
    Object.freeze(record.scopes);
    Object.freeze(record);
    if (this.#known.size >= KNOWN_TOKENS_MAX) this.#known.clear();
    this.#known.set(presented, record);
    return record;
  }

  get(id: string): TokenRecord | null {
    const row = this.#db.prepare('SELECT * FROM tokens WHERE id = ?').get(id) as TokenRow | undefined;
    return row === undefined ? null : toRecord(row);
  }

  list(): TokenRecord[] {
    return allRows<TokenRow>(this.#db.prepare('SELECT * FROM tokens ORDER BY created_at, id')).map(toRecord);
  }

  setEnabled(id: string, enabled: boolean): TokenRecord | null {
    this.#db.prepare('UPDATE tokens SET enabled = ? WHERE id = ?').run(enabled ? 1 : 0, id);
    this.#known.clear();
    return this.get(id);
  }

  delete(id: string): boolean {
    const deleted = Number(this.#db.prepare('DELETE FROM tokens WHERE id = ?').run(id).changes) > 0;
    this.#known.clear();
    return deleted;
  }

  deleteAll(): void {
    this.#db.prepare('DELETE FROM tokens').run();
    this.#known.clear();
  }

  deleteByName(name: string): void {
    this.#db.prepare('DELETE FROM tokens WHERE name = ?').run(name);
    this.#known.clear();
  }
}

function toRecord(row: TokenRow): TokenRecord {
  return {
    id: row.id,
    name: row.name,
    scopes: parseScopes(JSON.parse(row.scopes) as unknown[]),
    origin: row.origin,
    kind: row.kind,
    enabled: row.enabled === 1,
    created_at: row.created_at,
  };
}
