/**
 * What the rest of the gateway uses of recording: the service (built by the
 * composition root, driven by the Control API) and the capture options the composition root takes (a test gateway
 * sets them). Everything else of this
 * folder is its own (the dependency rules keep it so).
 */
export { RecordingService } from './service.ts';
export type { CaptureOptions } from './capture.ts';
