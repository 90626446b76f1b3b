/**
 * Handlers of the pairing routes (no token needed). Decisions in
 * docs/decisions/015-pairing.md; the state lives in server/domain/pairing-service.ts.
 */
import type { HandlersFor } from '../app.ts';
import type { PairingRecord } from '../domain/pairing-service.ts';

function statusFields(record: PairingRecord) {
  return {
    pairing_id: record.id,
    state: record.state,
    client_name: record.client_name,
    scopes: record.scopes,
    expires_at: record.expires_at,
  };
}

export function pollUrl(id: string): string {
  return `/v1/pair/${id}`;
}

export const pairingHandlers = {
  requestPairing: ({ body, deps, req }) => {
    const record = deps.pairing.request(body, req.socket.remoteAddress ?? 'unknown');
    return { status: 202, json: { ...statusFields(record), poll_url: pollUrl(record.id) } };
  },

  getPairing: ({ params, deps, req }) => {
    const { record, token } = deps.pairing.poll(params.id, req.socket.remoteAddress ?? 'unknown');
    return {
      status: 200,
      json: {
        ...statusFields(record),
        granted_scopes: record.granted,
        token_id: record.token_id,
        ...(token !== null ? { token } : {}),
      },
    };
  },
} satisfies HandlersFor<'requestPairing' | 'getPairing'>;
