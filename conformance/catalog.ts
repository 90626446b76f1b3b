/**
 * The clause catalog (conformance/clauses.json, a verbatim copy of the spec's
 * catalog). Every check names clauses by these ids; lint.ts keeps them honest.
 */
import { readShippedFileSync } from './shipped.ts';

export type ClauseKind = 'requirement' | 'gap' | 'conflict';
export type Observe = 'http' | 'control' | 'receiver' | 'slow' | 'internal';

export interface Clause {
  id: string;
  section: string;
  statement: string;
  kind: ClauseKind;
  observe: Observe;
  expect: string;
  /** Conflicts only: the acceptable behaviours; the one marked "(spec uses this)" is the spec's choice. */
  alternatives?: string[];
}

/** Clauses a black-box suite can observe (everything but `internal`). */
const CHECKABLE_OBSERVE: readonly Observe[] = ['http', 'control', 'receiver', 'slow'];

export const CLAUSES_FILE = new URL('./clauses.json', import.meta.url);

let cached: Clause[] | null = null;

export function loadClauses(): Clause[] {
  if (cached === null) {
    const doc = JSON.parse(readShippedFileSync('conformance/clauses.json', CLAUSES_FILE).toString('utf8')) as { clauses: Clause[] };
    cached = doc.clauses;
  }
  return cached;
}

let byId: Map<string, Clause> | null = null;

export function clauseById(id: string): Clause | undefined {
  if (byId === null) byId = new Map(loadClauses().map((c) => [c.id, c]));
  return byId.get(id);
}

/** The clause, or an exception naming the unknown id (a check bug). */
export function clause(id: string): Clause {
  const c = clauseById(id);
  if (c === undefined) throw new Error(`unknown clause id ${JSON.stringify(id)} (not in conformance/clauses.json)`);
  return c;
}

export function isCheckable(c: Clause): boolean {
  return CHECKABLE_OBSERVE.includes(c.observe);
}

/**
 * For a conflict clause: the alternative the spec chose (marked "(spec uses
 * this)"), or null when the spec does not choose (every alternative conforms).
 */
export function specChoice(c: Clause): string | null {
  return c.alternatives?.find((a) => a.includes('(spec uses this)')) ?? null;
}
