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
import type { Router } from 'express';
import { z } from 'zod';
import { controlPairingView, type PairingService } from '../features/pairing/service.ts';
import { json, readBody } from './http.ts';

/** What the pairing routes use, and nothing else. */
export interface PairingControlDeps {
  pairing: Pick<PairingService, 'list' | 'approve' | 'reject'>;
}

const ApprovePairingBody = z.strictObject({ scopes: z.array(z.string().max(64)).max(64).optional() });
const EmptyBody = z.strictObject({});

/** `deps` gives the current services (they are rebuilt at every restart). */
export function registerPairingControlRoutes(router: Router, deps: () => PairingControlDeps): void {
  router.get('/control/pairings', (_req, res) => {
    json(res, 200, { pairings: deps().pairing.list().map(controlPairingView) });
  });

  router.post('/control/pairings/:id/approve', async (req, res) => {
    const body = await readBody(req, ApprovePairingBody, false);
    json(res, 200, controlPairingView(deps().pairing.approve(req.params.id, body?.scopes)));
  });

  router.post('/control/pairings/:id/reject', async (req, res) => {
    await readBody(req, EmptyBody, false);
    json(res, 200, controlPairingView(deps().pairing.reject(req.params.id)));
  });
}
