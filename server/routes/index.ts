/**
 * Every operation's handler, keyed by operationId, each typed by its row. The
 * type makes a missing or unknown handler a compile error; operations.test.ts checks it at run time
 * too.
 */
import type { HandlersFor } from '../app.ts';
import type { OperationId } from '../operations.ts';
import { configHandlers } from './config.ts';
import { jobHandlers } from './jobs.ts';
import { meetingHandlers } from './meetings.ts';
import { searchHandlers } from './search.ts';
import { summaryHandlers } from './summaries.ts';
import { systemHandlers } from './system.ts';
import { webhookHandlers } from './webhooks.ts';
import { pairingHandlers } from './pairing.ts';
import { recordingHandlers } from './recording.ts';

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
