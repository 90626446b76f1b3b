/**
 * The mutants: each breaks one rule, and names the checks that must catch
 * it. `node conformance/mutants/run.ts` runs them against a conforming target.
 * They are written down by area in catalog-access.ts, catalog-resources.ts and
 * catalog-async.ts (with the edits of mutant-edits.ts); the order here is the
 * order of runs and shards.
 */
import { ASYNC_MUTANTS } from './catalog-async.ts';
import { ACCESS_MUTANTS } from './catalog-access.ts';
import { RESOURCE_MUTANTS } from './catalog-resources.ts';
import { pass, relayed } from './mutant-edits.ts';
import type { Mutant } from './proxy.ts';
import { deliveryRelay } from './relay.ts';

export const MUTANTS: Mutant[] = [
  ...ACCESS_MUTANTS,
  ...RESOURCE_MUTANTS,
  ...ASYNC_MUTANTS,
  // ---------------------------------------------------------------- the webhook retry schedule (through a delivery relay)
  {
    name: 'webhook-retry-waits-doubled',
    description: 'at-least-once retries wait 2, 4, 8, 16 and 32 s instead of 1, 2, 4, 8 and 16 s',
    expect: { 'webhooks/retry-schedule-start': 'FAIL' },
    ...relayed(deliveryRelay((k) => (k < 6 ? [0, 2, 6, 14, 30, 62][k]! * 1000 : null))),
  },
  {
    name: 'webhook-retry-three-attempts',
    description: 'an at-least-once delivery that keeps failing is given up after 3 attempts instead of 6',
    expect: { 'webhooks/retry-schedule-start': 'FAIL' },
    ...relayed(deliveryRelay((k, atMs) => (k < 3 ? atMs : null))),
  },
  {
    name: 'identity',
    description: 'changes nothing: the proxy itself must be transparent, so every check keeps its outcome',
    expect: {},
    request: pass,
  },
];

export function mutantByName(name: string): Mutant | undefined {
  return MUTANTS.find((m) => m.name === name);
}
