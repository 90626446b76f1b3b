/**
 * Every operation's handler, keyed by operationId, each typed by its row. The
 * type makes a missing or unknown handler a compile error; operations.test.ts checks it at run time
 * too.
 */
import type { HandlersFor } from './app.ts';
import type { OperationId } from './operations.ts';
import { configHandlers } from './features/config/handlers.ts';
import { jobHandlers } from './features/jobs/handlers.ts';
import { meetingHandlers } from './features/meetings/handlers.ts';
import { searchHandlers } from './features/search/handlers.ts';
import { summaryHandlers } from './features/summaries/handlers.ts';
import { systemHandlers } from './features/system/handlers.ts';
import { webhookHandlers } from './features/webhooks/handlers.ts';
import { pairingHandlers } from './features/pairing/handlers.ts';
import { recordingHandlers } from './features/recording/handlers.ts';

export const HANDLERS: HandlersFor<OperationId> = {
  ...systemHandlers,
  ...searchHandlers,
  ...meetingHandlers,
  ...summaryHandlers,
  ...jobHandlers,
  ...configHandlers,
  ...webhookHandlers,
  ...pairingHandlers,
  ...recordingHandlers,
};
