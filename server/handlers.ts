/**
 * Every operation's handler, keyed by operationId, each with the services of
 * its own feature. The type makes a missing or unknown handler a compile
 * error; operations.test.ts checks it at run time too.
 *
 * A feature declares the services its handlers use (JobsDeps, MeetingsDeps …
 * in features/<name>/handlers.ts); the composition root (deps.ts) builds one
 * object of exactly those per feature (FeatureDeps), and the router hands each
 * handler its feature's object, never the whole set (decision 084).
 */
import type { Handler, HandlersFor } from './http-types.ts';
import type { OperationId } from './operations.ts';
import { configHandlers, type ConfigDeps } from './features/config/handlers.ts';
import { jobHandlers, type JobsDeps } from './features/jobs/handlers.ts';
import { meetingHandlers, type MeetingsDeps } from './features/meetings/handlers.ts';
import { searchHandlers, type SearchDeps } from './features/search/handlers.ts';
import { summaryHandlers, type SummariesDeps } from './features/summaries/handlers.ts';
import { systemHandlers, type SystemDeps } from './features/system/handlers.ts';
import { webhookHandlers, type WebhooksDeps } from './features/webhooks/handlers.ts';
import { pairingHandlers, type PairingDeps } from './features/pairing/handlers.ts';
import { recordingHandlers, type RecordingDeps } from './features/recording/handlers.ts';

/** The services of each feature's handlers, one object per feature. */
export interface FeatureDeps {
  system: SystemDeps;
  search: SearchDeps;
  meetings: MeetingsDeps;
  summaries: SummariesDeps;
  jobs: JobsDeps;
  config: ConfigDeps;
  webhooks: WebhooksDeps;
  pairing: PairingDeps;
  recording: RecordingDeps;
}

/** A handler with the services it is called with. */
export interface WiredHandler {
  handler: Handler;
  deps: unknown;
}

/**
 * Pairs each handler with its feature's services. The one place a typed
 * handler becomes the router's untyped one: the router parses params, query
 * and body by the handler's own row (app.ts), which is what HandlerFor promises.
 */
export function wireHandlers(features: FeatureDeps): Record<OperationId, WiredHandler> {
  return {
    ...wire(systemHandlers, features.system),
    ...wire(searchHandlers, features.search),
    ...wire(meetingHandlers, features.meetings),
    ...wire(summaryHandlers, features.summaries),
    ...wire(jobHandlers, features.jobs),
    ...wire(configHandlers, features.config),
    ...wire(webhookHandlers, features.webhooks),
    ...wire(pairingHandlers, features.pairing),
    ...wire(recordingHandlers, features.recording),
  };
}

/** One feature's handlers, each paired with that feature's services (the type refuses another feature's). */
function wire<Id extends OperationId, Deps>(handlers: HandlersFor<Id, NoInfer<Deps>>, deps: Deps): Record<Id, WiredHandler> {
  const wired = {} as Record<Id, WiredHandler>;
  for (const id of Object.keys(handlers) as Id[]) wired[id] = { handler: handlers[id] as unknown as Handler, deps };
  return wired;
}
