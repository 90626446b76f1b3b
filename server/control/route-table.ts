/**
 * The Control API's route table, as the Automation API has its operations
 * table: every route is a row (method, path, the CONTROL.md capability it
 * belongs to, handler), and each route file declares the services its
 * handlers use, nothing more. createControlApp (app.ts) mounts the rows and
 * answers GET /control with the capabilities the rows serve.
 */
import type { Request, Response } from 'express';
import type { CAPABILITIES } from './schemas.ts';

type ControlCapability = (typeof CAPABILITIES)[number];

export interface ControlRoute<Deps> {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** An Express path, e.g. /control/tokens/:token_id. */
  path: string;
  capability: ControlCapability;
  /** Gets the application's current services (they are rebuilt at every restart), typed by what it uses. */
  handle: (req: Request, res: Response, deps: Deps) => unknown;
}
