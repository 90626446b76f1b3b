/**
 * What the rest of the gateway uses of pairing: the service (built by the
 * composition root) and the view of a pairing request that the Control API
 * lists. Everything else of this folder is its own (the dependency rules keep
 * it so).
 */
export { controlPairingView, PairingService } from './service.ts';
