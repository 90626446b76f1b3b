/**
 * The one form of every state machine of the gateway (jobs, recording,
 * webhook approval, summary operations, pairing): a transition table of rows
 * "from these states, on this event, to that state", and a pure transition()
 * that reads it. A (state, event) pair with no row is refused (null); what a
 * refusal means to a caller (a 409 with which code, a no-op) stays with the
 * feature that owns the machine.
 *
 * Each machine is tested by table (outcomes() enumerates every pair), so a
 * changed row shows up as a changed expectation, not as a surprise elsewhere.
 */

interface TransitionRow<S extends string, E extends string> {
  from: readonly S[];
  on: E;
  to: S;
}

export interface StateMachine<S extends string, E extends string> {
  readonly name: string;
  readonly states: readonly S[];
  readonly events: readonly E[];
  readonly rows: readonly TransitionRow<S, E>[];
}

/**
 * A machine, checked once when its module loads: every row names known states
 * and events, and no (state, event) pair has two rows (the table alone decides).
 */
export function defineStateMachine<const S extends string, const E extends string>(spec: StateMachine<S, E>): StateMachine<S, E> {
  const seen = new Set<string>();
  for (const row of spec.rows) {
    if (!spec.events.includes(row.on)) throw new Error(`${spec.name}: unknown event ${row.on}`);
    if (!spec.states.includes(row.to)) throw new Error(`${spec.name}: unknown state ${row.to}`);
    for (const from of row.from) {
      if (!spec.states.includes(from)) throw new Error(`${spec.name}: unknown state ${from}`);
      const key = `${from} ${row.on}`;
      if (seen.has(key)) throw new Error(`${spec.name}: two rows for ${key}`);
      seen.add(key);
    }
  }
  return spec;
}

/** The next state, or null when the table has no row for the pair. */
export function transition<S extends string, E extends string>(machine: StateMachine<S, E>, state: S, event: E): S | null {
  for (const row of machine.rows) {
    if (row.on === event && row.from.includes(state)) return row.to;
  }
  return null;
}

/** Every (state, event) pair of a machine with its outcome, for the table tests. */
export function outcomes<S extends string, E extends string>(machine: StateMachine<S, E>): { state: S; event: E; to: S | null }[] {
  return machine.states.flatMap((state) => machine.events.map((event) => ({ state, event, to: transition(machine, state, event) })));
}

/** The whole table as state → event → next state (null: refused), for the table tests. */
export function tableOf<S extends string, E extends string>(machine: StateMachine<S, E>): Record<S, Record<E, S | null>> {
  const table = {} as Record<S, Record<E, S | null>>;
  for (const { state, event, to } of outcomes(machine)) {
    table[state] = { ...(table[state] as Record<E, S | null> | undefined), [event]: to } as Record<E, S | null>;
  }
  return table;
}
