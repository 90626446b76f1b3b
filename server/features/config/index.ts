/**
 * What the rest of the gateway uses of config: the service, which the
 * composition root builds. Its rows and handlers join the table through
 * server/operations.ts and server/handlers.ts; everything else of this folder
 * is its own (the dependency rules keep it so).
 */
export { ConfigService } from './service.ts';
