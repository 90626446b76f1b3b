/**
 * API tokens. Only a SHA-256 hash of each raw token is stored; the raw token
 * exists once, in the response that created it.
 *
 * Lookup hashes the presented token and finds the row by its hash, then
 * compares the two hashes with timingSafeEqual: the time a lookup takes says
 * nothing about how much of a guessed token was right (the index sees only a
 * hash, and a preimage-resistant hash scatters near guesses).
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
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
  return createHash('sha256').update(raw, 'utf8').digest('hex');
}

/**
 * The effective scopes of a new token (API.md Authentication 2, 4; CONTROL.md
 * Tokens): unknown names parse to nothing; an assistant token's baseline adds
 * read and record; a paired device never holds delete.
 */
export function effectiveScopes(requested: readonly unknown[], origin: TokenOrigin, kind: TokenKind): Scope[] {
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
   * Tokens already found, by hash: authenticate() runs on every request, and a
   * SQLite lookup plus a JSON parse of the scopes was the largest cost of an
   * authenticated call. Only hits are kept (unknown bearer values cannot fill
   * it); every write below clears it, and this repo is the only writer of the
   * table (a restart builds a new repo).
   */
  readonly #known = new Map<string, { row: TokenRow; record: TokenRecord }>();

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

  /** The token a raw bearer value stands for, or null. */
  authenticate(raw: string): TokenRecord | null {
    const presented = hashToken(raw);
    let known = this.#known.get(presented);
    if (known === undefined) {
      const row = this.#byHash.get(presented) as TokenRow | undefined;
      if (row === undefined) return null;
      known = { row, record: toRecord(row) };
      if (this.#known.size >= KNOWN_TOKENS_MAX) this.#known.clear();
      this.#known.set(presented, known);
    }
    const same = timingSafeEqual(Buffer.from(known.row.hash, 'hex'), Buffer.from(presented, 'hex'));
    return same ? { ...known.record, scopes: [...known.record.scopes] } : null;
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
