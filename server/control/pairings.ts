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
import { controlPairingView } from '../features/pairing/service.ts';
import type { ControlDeps } from './app.ts';
import { json, readBody } from './http.ts';

const ApprovePairingBody = z.strictObject({ scopes: z.array(z.string().max(64)).max(64).optional() });
const EmptyBody = z.strictObject({});

export function registerPairingControlRoutes(router: Router, ctl: ControlDeps): void {
  router.get('/control/pairings', (_req, res) => {
    json(res, 200, { pairings: ctl.deps().pairing.list().map(controlPairingView) });
  });

  router.post('/control/pairings/:id/approve', async (req, res) => {
    const body = await readBody(req, ApprovePairingBody, false);
    json(res, 200, controlPairingView(ctl.deps().pairing.approve(req.params.id, body?.scopes)));
  });

  router.post('/control/pairings/:id/reject', async (req, res) => {
    await readBody(req, EmptyBody, false);
    json(res, 200, controlPairingView(ctl.deps().pairing.reject(req.params.id)));
  });
}
