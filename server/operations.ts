/**
 * The table of every operation the gateway serves, assembled from the rows
 * each feature declares in its own operations.ts (server/features/<name>/).
 *
 * The router (app.ts), the scope check (kernel/auth.ts) and GET /openapi.json
 * (features/system/openapi.ts) are all built from this one table, so they
 * cannot drift apart; operations.test.ts proves it. A route that is not in
 * this table does not exist. A new operation is a row in its feature's
 * operations.ts and a handler in that feature's handlers.ts (server/README.md).
 * The order below is the order of /openapi.json's paths.
 */
import { SYSTEM_OPERATIONS } from './features/system/operations.ts';
import { SEARCH_OPERATIONS } from './features/search/operations.ts';
import { MEETING_OPERATIONS } from './features/meetings/operations.ts';
import { SUMMARY_OPERATIONS } from './features/summaries/operations.ts';
import { JOB_OPERATIONS } from './features/jobs/operations.ts';
import { CONFIG_OPERATIONS } from './features/config/operations.ts';
import { WEBHOOK_OPERATIONS } from './features/webhooks/operations.ts';
import { PAIRING_OPERATIONS } from './features/pairing/operations.ts';
import { RECORDING_OPERATIONS } from './features/recording/operations.ts';

/** Every operation, feature by feature. */
export const OPERATIONS = [
  ...SYSTEM_OPERATIONS,
  ...SEARCH_OPERATIONS,
  ...MEETING_OPERATIONS,
  ...SUMMARY_OPERATIONS,
  ...JOB_OPERATIONS,
  ...CONFIG_OPERATIONS,
  ...WEBHOOK_OPERATIONS,
  ...PAIRING_OPERATIONS,
  ...RECORDING_OPERATIONS,
] as const;

export type OperationId = (typeof OPERATIONS)[number]['operationId'];

export type { Operation } from './kernel/operation-types.ts';
