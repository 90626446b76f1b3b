/**
 * What the rest of the gateway uses of recording: the service (built by the
 * composition root, driven by the Control API), the prefix of a recording's
 * file while it is still being written (the startup sweep keeps such files),
 * and the capture options the composition root takes (a test gateway
 * sets them). Everything else of this
 * folder is its own (the dependency rules keep it so).
 */
export { PENDING_PREFIX, RecordingService } from './service.ts';
export type { CaptureOptions } from './capture.ts';
