/**
 * What the rest of the gateway uses of meeting detection: the service (built
 * by the composition root, shown by the Control API) Everything else of this folder is its own.
 */
export { DetectionService } from './service.ts';
