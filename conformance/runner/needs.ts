/**
 * Preconditions: why a check cannot run against this target with this run's
 * options (a missing token, Control API capability, receiver, --slow …), so
 * it is SKIPPED with the missing need named instead of run.
 */
import type { Check } from '../harness/check.ts';
import type { ControlCapability, Need } from '../harness/check-types.ts';
import { CONTROL_CAPABILITIES } from '../harness/check.ts';
import type { Environment } from '../harness/context-types.ts';

/** Why a check cannot run here, or null. */
function missingNeed(need: Need, env: Environment): string | null {
  switch (need) {
    case 'token':
      return env.control?.has('tokens') === true || env.userToken !== null || (env.tokenPool ?? null) !== null
        ? null
        : "needs an API token: give --token or --tokens, or --control-url with the 'tokens' capability";
    case 'tokens':
      // Without the Control API the check runs with the tokens handed to the run; one it lacks makes it SKIPPED, naming it.
      if (env.control?.has('tokens') === true || (env.tokenPool ?? null) !== null) return null;
      if (env.control === null)
        return `needs tokens of several scope sets: give --tokens FILE (or --token), or --control-url with the 'tokens' capability (${env.controlMissing})`;
      return `needs the Control API capability 'tokens' (the target offers: ${[...env.control.capabilities].join(', ') || 'none'}), or --tokens FILE`;
    case 'receiver':
      return env.receiverHint ?? null;
    case 'meeting':
      // Seeded through the Control API, or made by importing speech with any token that may import.
      return env.control?.has('meetings') === true ||
        env.control?.has('tokens') === true ||
        env.userToken !== null ||
        (env.tokenPool ?? null) !== null
        ? null
        : "needs a meeting: give --token (one that may import: read and write), or --control-url with the 'meetings' capability";
    case 'slow':
      return env.slow ? null : 'a slow check (minutes of waiting): run with --slow';
    case 'fresh':
      return env.fresh
        ? null
        : 'needs a target started as a fresh installation (empty data folder, default settings): start one and run with --fresh';
    case 'local':
      return env.local ? null : 'needs the target on this machine (a loopback base URL)';
    default:
      if (env.control === null) return `needs the Control API capability '${need}': ${env.controlMissing}`;
      return env.control.has(need)
        ? null
        : `needs the Control API capability '${need}' (the target offers: ${[...env.control.capabilities].join(', ') || 'none'})`;
  }
}

/** What each Control API capability brings a check, for the skip reasons (a target without it learns what it misses). */
const CAPABILITY_BRINGS: Record<ControlCapability, string> = {
  reset: 'a clean target before the check',
  settings: 'settings: webhooks, the webhook allowlist, the API switch, pre-arming, license',
  restart: 'a restart, for settings read at startup',
  tokens: 'tokens of any description',
  meetings: 'meetings of chosen text',
  jobs: 'jobs held in a chosen state',
  pairings: 'approving pairings',
  'webhook-approval': 'approving webhooks, so they are delivered',
  devices: 'simulated devices',
  'recording-fault': 'recording faults',
};

/**
 * Why a check cannot run here, or null: the first need that is not met; when
 * several are Control API capabilities, all of those, each with what it
 * brings, so a skip names everything that would unlock the check.
 */
export function missingNeeds(check: Check, env: Environment): string | null {
  const missing = check.needs.map((n) => [n, missingNeed(n, env)] as const).filter(([, m]) => m !== null);
  const capabilities = missing
    .map(([n]) => n)
    .filter((n): n is ControlCapability => (CONTROL_CAPABILITIES as readonly string[]).includes(n));
  if (capabilities.length > 1 && missing[0] !== undefined && capabilities.includes(missing[0][0] as ControlCapability)) {
    const why = env.control === null ? env.controlMissing : `the target offers: ${[...env.control.capabilities].join(', ') || 'none'}`;
    return `needs the Control API capabilities ${capabilities.map((c) => `'${c}' (${CAPABILITY_BRINGS[c]})`).join(', ')}: ${why}`;
  }
  return missing[0]?.[1] ?? null;
}
