/**
 * What other features and the pipeline use of the configuration: the service
 * that reads each section's effective values.
 */
export type { ConfigService } from './service.ts';
