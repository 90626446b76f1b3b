/**
 * Handlers of the pairing routes (no token needed). Decisions in
 * docs/decisions/015-pairing.md; the state lives in server/features/pairing/service.ts.
 */
import type { HandlersFor } from '../../http-types.ts';
import { pairingPollDto, pairingRequestDto, type PairingService } from './service.ts';

/** The services the pairing routes use, and nothing else (built by server/deps.ts). */
export interface PairingDeps {
  pairing: PairingService;
}

export const pairingHandlers = {
  requestPairing: ({ body, deps, req }) => {
    const record = deps.pairing.request(body, req.socket.remoteAddress ?? 'unknown');
    return { status: 202, json: pairingRequestDto(record) };
  },

  getPairing: ({ params, deps, req }) => {
    const { record, token } = deps.pairing.poll(params.id, req.socket.remoteAddress ?? 'unknown');
    return { status: 200, json: pairingPollDto(record, token) };
  },
} satisfies HandlersFor<'requestPairing' | 'getPairing', PairingDeps>;
