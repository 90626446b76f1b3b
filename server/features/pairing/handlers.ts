/**
 * Handlers of the pairing routes (no token needed). Decisions in
 * docs/decisions/015-pairing.md; the state lives in server/features/pairing/service.ts.
 */
import type { HandlersFor } from '../../app.ts';
import { pairingPollDto, pairingRequestDto } from './service.ts';

export const pairingHandlers = {
  requestPairing: ({ body, deps, req }) => {
    const record = deps.pairing.request(body, req.socket.remoteAddress ?? 'unknown');
    return { status: 202, json: pairingRequestDto(record) };
  },

  getPairing: ({ params, deps, req }) => {
    const { record, token } = deps.pairing.poll(params.id, req.socket.remoteAddress ?? 'unknown');
    return { status: 200, json: pairingPollDto(record, token) };
  },
} satisfies HandlersFor<'requestPairing' | 'getPairing'>;
