/**
 * The words a check is described with: its grading level, its preconditions
 * (needs) and its metadata. Types only: the runner, the context and the
 * Control API driver share them without importing one another (check.ts adds
 * the run function, which takes a CheckContext).
 */

/** Control API capabilities (CONTROL.md, Discovery); check.ts lists them as a value (CONTROL_CAPABILITIES). */
export type ControlCapability =
  'reset' | 'settings' | 'restart' | 'tokens' | 'meetings' | 'jobs' | 'pairings' | 'webhook-approval' | 'devices' | 'recording-fault';

/**
 * A precondition. Missing ones make the check SKIPPED with the need named.
 * - a Control API capability;
 * - 'token': some API token (minted through the Control API, or --token);
 * - 'receiver': a webhook receiver the target can reach;
 * - 'slow': the run was started with --slow;
 * - 'fresh': the operator says the target was started as a fresh installation (--fresh);
 * - 'local': the target runs on this machine (its base URL is a loopback address);
 * - 'meeting': a meeting of the check's own, seeded through the Control API ('meetings') or,
 *   without it, made by importing speech (harness/api-fixtures.ts): the check uses its id and
 *   title, not seeded transcript or summary text.
 */
export type Need = ControlCapability | 'token' | 'receiver' | 'slow' | 'fresh' | 'local' | 'meeting';

/**
 * How the check is graded, mirroring the kind of the clauses it covers:
 * - requirement: PASS or FAIL;
 * - conflict: PASS (the spec's choice, or any alternative when the spec does not
 *   choose), NON_STRICT (another documented alternative), FAIL (none of them);
 * - gap: INFORMATIONAL, always; what the target did is recorded.
 */
export type Level = 'requirement' | 'conflict' | 'gap';

/** A check without its run function: what the context, the runner and the reports read of it. */
export interface CheckInfo {
  /** '<area>/<behaviour>', the file's path under checks/ without .check.ts. */
  id: string;
  /** Clause ids of conformance/clauses.json; the first is the primary one. */
  clauses: readonly string[];
  level: Level;
  needs: readonly Need[];
  /** One sentence: what the check does. */
  description: string;
  /** The statement of the primary clause, verbatim (lint.ts compares them). */
  requirement: string;
  /** Time budget of one attempt (default 60 s; slow checks set more). */
  timeoutMs?: number;
  /**
   * 'first': runs before anything else (before any reset), e.g. observations of a
   * fresh target. 'last': runs after every other check and may audit their
   * exchanges (ctx.runLog).
   */
  order?: 'first' | 'last';
  /**
   * What target state the check touches, for --jobs (runner/run.ts):
   * 'own': only resources it creates itself (its meetings, tokens, jobs held
   * as fixtures, webhooks to its own receiver endpoint), so it may run beside
   * other 'own' checks after one shared reset; 'global': it resets,
   * restarts, changes settings, records (one recording at a time), counts or
   * searches every resource, or loads a shared queue or budget, so it runs
   * alone after its own reset. 'recorder': its own resources plus the one
   * recorder and the simulated devices it records from (it starts recordings,
   * waits on them or plugs devices, and changes no setting), so it runs beside
   * 'own' checks but never beside another 'recorder' check; the devices it
   * plugged are unplugged after it. Unset: 'global' (see isolationOf).
   */
  touches?: 'own' | 'recorder' | 'global';
}
