/**
 * The four scopes of API.md (Authentication 2–4) as pure functions.
 *
 * - record and write each also satisfy read;
 * - delete is granted separately and implies neither read nor write;
 * - holding write grants neither record nor delete;
 * - any other string (for example "admin") parses to nothing.
 */
export const SCOPES = ['read', 'record', 'write', 'delete'] as const;
export type Scope = (typeof SCOPES)[number];

/** The minimum an operation requires; "none" marks the routes that take no token. */
export type RequiredScope = Scope | 'none';

function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}

/** Parses a list of strings the way the API does: unknown names are dropped, duplicates folded, order canonical. */
export function parseScopes(values: readonly unknown[]): Scope[] {
  const wanted = new Set(values.filter(isScope));
  return SCOPES.filter((s) => wanted.has(s));
}

export function satisfies(held: readonly Scope[], required: RequiredScope): boolean {
  switch (required) {
    case 'none':
      return true;
    case 'read':
      return held.includes('read') || held.includes('record') || held.includes('write');
    default:
      return held.includes(required);
  }
}
