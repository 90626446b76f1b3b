/**
 * The Control API's pairing routes (CONTROL.md, Pairings): the person at the
 * application approves or rejects a device's request.
 *
 *   GET  /control/pairings                 {"pairings": [{id, client_name, scopes, state, ...}]}
 *   POST /control/pairings/{id}/approve    optional {"scopes": [...]} narrows what was asked → 200
 *   POST /control/pairings/{id}/reject     → 200
 *
 * 404 unknown id, 409 conflict when the request is not pending (already
 * answered, or expired), 422 for a bad body. Decisions: docs/decisions/015-pairing.md.
 */
import { z } from 'zod';
import { controlPairingView, type PairingService } from '../features/pairing/index.ts';
import { json, readBody } from './http.ts';
import type { ControlRoute } from './route-table.ts';

/** What the pairing routes use, and nothing else. */
export interface PairingControlDeps {
  pairing: Pick<PairingService, 'list' | 'approve' | 'reject'>;
}

const ApprovePairingBody = z.strictObject({ scopes: z.array(z.string().max(64)).max(64).optional() });
const EmptyBody = z.strictObject({});

export const PAIRING_CONTROL_ROUTES: ControlRoute<PairingControlDeps>[] = [
  {
    method: 'get',
    path: '/control/pairings',
    capability: 'pairings',
    handle: (_req, res, deps) => json(res, 200, { pairings: deps.pairing.list().map(controlPairingView) }),
  },
  {
    method: 'post',
    path: '/control/pairings/:id/approve',
    capability: 'pairings',
    handle: async (req, res, deps) => {
      const body = await readBody(req, ApprovePairingBody, false);
      json(res, 200, controlPairingView(deps.pairing.approve(String(req.params['id']), body?.scopes)));
    },
  },
  {
    method: 'post',
    path: '/control/pairings/:id/reject',
    capability: 'pairings',
    handle: async (req, res, deps) => {
      await readBody(req, EmptyBody, false);
      json(res, 200, controlPairingView(deps.pairing.reject(String(req.params['id']))));
    },
  },
];
