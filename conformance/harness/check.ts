/**
 * The shape of a check: one file per behaviour under checks/<area>/, named
 * <behaviour>.check.ts and exporting `check` (see defineCheck). The metadata
 * is test262-style: stable clause ids, the requirement quoted verbatim from
 * the clause statement, the grading level and the preconditions.
 */
import type { CheckInfo, ControlCapability } from './check-types.ts';
import type { CheckContext } from './context.ts';

/**
 * Control API capabilities (CONTROL.md, Discovery), in its order. Keyed by the type, so a
 * capability added to the type and not here (or here and not there) fails the type check.
 */
const CAPABILITIES_LISTED: Record<ControlCapability, true> = {
  reset: true,
  settings: true,
  restart: true,
  tokens: true,
  meetings: true,
  jobs: true,
  pairings: true,
  'webhook-approval': true,
  devices: true,
  'recording-fault': true,
};
export const CONTROL_CAPABILITIES: readonly ControlCapability[] = Object.keys(CAPABILITIES_LISTED) as ControlCapability[];

export interface Check extends CheckInfo {
  run(ctx: CheckContext): Promise<void>;
}

export function defineCheck(check: Check): Check {
  return check;
}

/** The area of a check id ('meetings/rename-applies' → 'meetings'). */
export function checkArea(id: string): string {
  return id.split('/')[0] ?? id;
}
