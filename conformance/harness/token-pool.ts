/**
 * API tokens handed to the suite instead of minted through a Control API:
 * `--token` and the entries of a tokens file (`--tokens FILE`). A check asks
 * for a token by scope set, origin and kind (ctx.token, ctx.mint); without
 * the Control API's 'tokens' capability the pool answers with a token of
 * exactly that description, or the check is SKIPPED naming the one it lacked.
 * Every request is counted (TokenUse), so a run can say which token unlocked
 * which checks and which missing ones skipped which.
 *
 * The tokens file (JSON):
 *
 *   { "tokens": [
 *       { "token": "mas_…" },                                   // scopes, origin, kind from GET /v1/whoami
 *       { "token_env": "MAS_TOKEN_READ", "note": "read only" }, // the token in an environment variable
 *       { "token": "mas_…", "origin": "paired" },                // a field given here wins over whoami
 *       { "token": "mas_…", "scopes": ["record"], "origin": "lan", "kind": "standard" }
 *   ] }
 *
 * (a bare array of the same entries is accepted too). What an entry may hold
 * is described in conformance/README.md ("Without a Control API").
 */
import { readFileSync } from 'node:fs';
import { effectiveScopes } from '../spec/auth-rules.ts';
import { SCOPES } from '../spec/constants.ts';
import type { TokenKind, TokenOrigin } from './control.ts';

const TOKEN_ORIGINS: readonly TokenOrigin[] = ['loopback', 'paired', 'lan'];
const TOKEN_KINDS: readonly TokenKind[] = ['standard', 'first_party', 'assistant'];

export interface PoolToken {
  token: string;
  /** What whoami reported, '' when it did not say. */
  tokenId: string;
  scopes: string[];
  /** False for a --token whose whoami did not say: it serves any "at least" request and no exact one. */
  scopesKnown?: boolean;
  origin: TokenOrigin;
  kind: TokenKind;
  /** Where it came from: '--token' or 'tokens file entry 3'. */
  source: string;
  note?: string;
}

export interface TokenRequest {
  scopes: readonly string[];
  origin?: TokenOrigin;
  kind?: TokenKind;
}

/** An entry of the tokens file as read, before whoami fills the gaps. */
export interface TokenFileEntry {
  token: string;
  scopes?: string[];
  origin?: TokenOrigin;
  kind?: TokenKind;
  note?: string;
  /** 1-based position in the file, for messages. */
  index: number;
}

export class TokensFileError extends Error {}

/** Reads and checks a tokens file; environment variables are read for token_env entries. */
export function readTokensFile(file: string, env: NodeJS.ProcessEnv = process.env): TokenFileEntry[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch (err) {
    throw new TokensFileError(`--tokens ${file}: ${(err as Error).message}`);
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as { tokens?: unknown } | null)?.tokens;
  if (!Array.isArray(list)) throw new TokensFileError(`--tokens ${file}: expected {"tokens": [...]} or an array of entries`);
  return list.map((raw, i) => {
    const where = `--tokens ${file}: entry ${i + 1}`;
    const e = (typeof raw === 'string' ? { token: raw } : raw) as Record<string, unknown> | null;
    if (e === null || typeof e !== 'object') throw new TokensFileError(`${where}: expected an object or a token string`);
    const known = new Set(['token', 'token_env', 'scopes', 'origin', 'kind', 'note']);
    const unknown = Object.keys(e).filter((k) => !known.has(k));
    if (unknown.length > 0) throw new TokensFileError(`${where}: unknown field ${unknown.join(', ')} (fields: ${[...known].join(', ')})`);
    let token = e.token;
    if (token === undefined && typeof e.token_env === 'string') {
      token = env[e.token_env];
      if (token === undefined || token === '') throw new TokensFileError(`${where}: the environment variable ${e.token_env} is not set`);
    }
    if (typeof token !== 'string' || token.length === 0)
      throw new TokensFileError(`${where}: needs "token" (a string) or "token_env" (a variable name)`);
    const entry: TokenFileEntry = { token, index: i + 1 };
    if (e.scopes !== undefined) {
      if (!Array.isArray(e.scopes) || !e.scopes.every((s) => typeof s === 'string'))
        throw new TokensFileError(`${where}: "scopes" must be an array of strings`);
      entry.scopes = e.scopes;
    }
    if (e.origin !== undefined) {
      if (!TOKEN_ORIGINS.includes(e.origin as TokenOrigin))
        throw new TokensFileError(`${where}: "origin" must be one of ${TOKEN_ORIGINS.join(', ')}`);
      entry.origin = e.origin as TokenOrigin;
    }
    if (e.kind !== undefined) {
      if (!TOKEN_KINDS.includes(e.kind as TokenKind))
        throw new TokensFileError(`${where}: "kind" must be one of ${TOKEN_KINDS.join(', ')}`);
      entry.kind = e.kind as TokenKind;
    }
    if (typeof e.note === 'string') entry.note = e.note;
    return entry;
  });
}

/** The scopes a token minted for this request holds, by API.md's rules (spec/auth-rules.ts: junk names dropped, an assistant's baseline, never delete on a paired device). */
export function effectiveRequestScopes(request: TokenRequest): string[] {
  return effectiveScopes({ requested: request.scopes, origin: request.origin ?? 'loopback', kind: request.kind ?? 'standard' });
}

/** 'read+write · loopback · standard' */
export function describeRequest(request: TokenRequest): string {
  const scopes = effectiveRequestScopes(request);
  return `${scopes.join('+') || 'no scope'} · ${request.origin ?? 'loopback'} · ${request.kind ?? 'standard or first_party'}`;
}

/**
 * Does the token fit the request? `exact`: the same effective scopes (a check
 * that tests what a token may NOT do needs exactly these); otherwise at least
 * them. A request that names no kind takes a standard or a first-party token:
 * API.md sets the two apart only for GET /v1/webhooks?all=true, and the checks
 * of that rule name the kind they need.
 */
export function fits(t: PoolToken, request: TokenRequest, exact: boolean): boolean {
  if (t.scopesKnown === false) return !exact && (request.origin ?? 'loopback') === 'loopback' && request.kind === undefined;
  if (t.origin !== (request.origin ?? 'loopback')) return false;
  if (request.kind === undefined ? t.kind !== 'standard' && t.kind !== 'first_party' : t.kind !== request.kind) return false;
  const want = effectiveRequestScopes(request);
  const held = new Set(t.scopes);
  if (!want.every((s) => held.has(s))) return false;
  return !exact || t.scopes.filter((s) => (SCOPES as readonly string[]).includes(s)).length === want.length;
}

export class TokenPool {
  readonly tokens: readonly PoolToken[];

  constructor(tokens: readonly PoolToken[]) {
    this.tokens = tokens;
  }

  /** The first token that fits and is not in `taken` (a check asking for two owners of one description gets two tokens). */
  find(request: TokenRequest, exact: boolean, taken: ReadonlySet<string> = new Set()): PoolToken | null {
    // Prefer a standard token when the kind is open: it is what a Control API would mint.
    const candidates = this.tokens.filter((t) => !taken.has(t.token) && fits(t, request, exact));
    return candidates.find((t) => t.kind === 'standard') ?? candidates[0] ?? null;
  }
}

/** Which token descriptions the checks asked for, who asked, and where the token came from. */
export interface TokenUseRow {
  request: string;
  /** '--token', 'tokens file entry 2', 'minted (Control API)', or 'missing'. */
  sources: Set<string>;
  checks: Set<string>;
  /** Checks SKIPPED because no token fit. */
  skipped: Set<string>;
}

export class TokenUse {
  readonly rows = new Map<string, TokenUseRow>();

  record(request: TokenRequest, checkId: string, source: string | null): void {
    const key = describeRequest(request);
    let row = this.rows.get(key);
    if (row === undefined) {
      row = { request: key, sources: new Set(), checks: new Set(), skipped: new Set() };
      this.rows.set(key, row);
    }
    if (source === null) row.skipped.add(checkId);
    else {
      row.sources.add(source);
      row.checks.add(checkId);
    }
  }

  /** A plain-text table: one line per description, what served it, the checks it unlocked or that were skipped for want of it. */
  summary(): string {
    const lines: string[] = [];
    const rows = [...this.rows.values()].sort((a, b) => (a.request < b.request ? -1 : 1));
    for (const r of rows) {
      const served = r.sources.size === 0 ? 'MISSING' : [...r.sources].join(', ');
      lines.push(`  ${r.request.padEnd(44)} ${served}`);
      if (r.checks.size > 0) lines.push(`      used by ${r.checks.size}: ${[...r.checks].sort().join(' ')}`);
      const skippedOnly = [...r.skipped].filter((c) => !r.checks.has(c));
      if (skippedOnly.length > 0) lines.push(`      would unlock ${skippedOnly.length}: ${skippedOnly.sort().join(' ')}`);
    }
    return lines.join('\n');
  }

  toJSON(): Array<{ request: string; sources: string[]; checks: string[]; skipped: string[] }> {
    return [...this.rows.values()].map((r) => ({
      request: r.request,
      sources: [...r.sources],
      checks: [...r.checks].sort(),
      skipped: [...r.skipped].sort(),
    }));
  }
}
