/**
 * createControlApp: the Control API of CONTROL.md, an Express application on
 * its own loopback listener (gateway.ts puts it there), never on the
 * Automation API's.
 *
 * Every request must carry `Authorization: Bearer <control secret>`, checked
 * in constant time before anything else (so an unknown path without the
 * secret is a 401, not a 404). Errors use the API's envelope and its one
 * registry (server/kernel/errors.ts). What is implemented, and how reset and restart
 * behave, is recorded in docs/decisions/008-control-api.md.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Clock } from '../adapters/clock.ts';
import type { DeviceCatalog } from '../adapters/devices.ts';
import type { JobsService } from '../features/jobs/index.ts';
import type { MeetingsService } from '../features/meetings/index.ts';
import type { SpeakersService } from '../features/speakers/index.ts';
import type { RecordingService } from '../features/recording/index.ts';
import type { HealthCounters } from '../kernel/health-counters.ts';
import type { SettingsRepo } from '../kernel/store/settings-repo.ts';
import type { TokensRepo } from '../kernel/store/tokens-repo.ts';
import { bearerToken } from '../kernel/auth.ts';
import { json, readBody } from './http.ts';
import { ApiError, sendError, toApiError } from '../kernel/errors.ts';
import { RESET_SETTINGS, SettingsPatch } from '../kernel/store/settings-repo.ts';
import { CAPABILITIES, CONTROL_VERSION, CreateTokenBody, EmptyBody, PatchTokenBody } from './schemas.ts';
import { FIXTURE_CONTROL_ROUTES, type FixtureControlDeps } from './fixtures.ts';
import { secretMatches } from './secret.ts';
import { RECORDING_CONTROL_ROUTES, type RecordingControlDeps } from './recording.ts';
import { WEBHOOK_CONTROL_ROUTES, type WebhookControlDeps } from './webhooks.ts';
import { PAIRING_CONTROL_ROUTES, type PairingControlDeps } from './pairings.ts';
import type { ControlRoute } from './route-table.ts';
import { registerSettingsPage } from './settings-page/index.ts';
import { fallbackLogger, type Logger } from '../kernel/http/logger.ts';
import { requestFields } from '../kernel/http/request-log.ts';
import { clip } from '../../common/clip.ts';

/** What the routes of this file use: reset, settings, tokens. */
interface CoreControlDeps {
  recording: Pick<RecordingService, 'reset'>;
  jobs: Pick<JobsService, 'deleteAll'>;
  meetings: Pick<MeetingsService, 'deleteAll'>;
  /** Reset wipes the voiceprints with the meetings they were learnt from. */
  speakers: Pick<SpeakersService, 'deleteAll'>;
  tokens: Pick<TokensRepo, 'deleteAll' | 'create' | 'get' | 'setEnabled' | 'delete' | 'list'>;
  counters: Pick<HealthCounters, 'reset'>;
  devices: Pick<DeviceCatalog, 'unplugAll'>;
  settings: Pick<SettingsRepo, 'get' | 'update'>;
  clock: Clock;
}

/** Every service the Control API reaches, each route file's declared needs together (the composition root's AppDeps has them). */
type ControlServices = CoreControlDeps & FixtureControlDeps & RecordingControlDeps & WebhookControlDeps & PairingControlDeps;

export interface ControlDeps {
  /** The control secret every request must present. */
  secret: string;
  /** The application's current services; gateway.ts rebuilds them at every restart. */
  deps: () => ControlServices;
  /**
   * Restarts the application with the same data (CONTROL.md, Restart). Called
   * synchronously right after the 204 has been handed to the socket, so the
   * next request any client sends already meets the restarted application.
   */
  restart: () => void;
  /** Where unexpected failures are reported (never to the client). */
  logError?: (err: unknown, req: Request) => void;
}

const REALM = { 'WWW-Authenticate': 'Bearer realm="mas-control"' };

/** Every route of the Control API, each route file's rows together. */
export function controlRouteTable(ctl: ControlDeps): ControlRoute<ControlServices>[] {
  return [
    ...coreControlRoutes(ctl),
    ...FIXTURE_CONTROL_ROUTES,
    ...WEBHOOK_CONTROL_ROUTES,
    ...PAIRING_CONTROL_ROUTES,
    ...RECORDING_CONTROL_ROUTES,
  ];
}

/** The routes of this file: reset and restart (which answer, then restart through `ctl`), settings and tokens. */
function coreControlRoutes(ctl: ControlDeps): ControlRoute<CoreControlDeps>[] {
  return [
    {
      method: 'post',
      path: '/control/reset',
      capability: 'reset',
      handle: async (req, res, deps) => {
        await readBody(req, EmptyBody, false);
        deps.recording.reset(); // first: capture stops before its meeting and file are erased
        deps.jobs.deleteAll();
        deps.meetings.deleteAll();
        deps.speakers.deleteAll();
        deps.tokens.deleteAll();
        deps.counters.reset();
        deps.devices.unplugAll();
        deps.settings.update(RESET_SETTINGS);
        answerThenRestart(res, ctl);
      },
    },
    {
      method: 'post',
      path: '/control/restart',
      capability: 'restart',
      handle: async (req, res) => {
        await readBody(req, EmptyBody, false);
        answerThenRestart(res, ctl);
      },
    },
    {
      method: 'get',
      path: '/control/settings',
      capability: 'settings',
      handle: (_req, res, deps) => {
        json(res, 200, deps.settings.get());
      },
    },
    {
      method: 'patch',
      path: '/control/settings',
      capability: 'settings',
      handle: async (req, res, deps) => {
        const patch = await readBody(req, SettingsPatch, true);
        json(res, 200, deps.settings.update(patch));
      },
    },
    {
      method: 'post',
      path: '/control/tokens',
      capability: 'tokens',
      handle: async (req, res, deps) => {
        const body = await readBody(req, CreateTokenBody, true);
        const { token, record } = deps.tokens.create(
          { name: body.name ?? 'control', scopes: body.scopes, origin: body.origin ?? 'loopback', kind: body.kind ?? 'standard' },
          deps.clock.now(),
        );
        json(res, 201, { token, token_id: record.id, scopes: record.scopes });
      },
    },
    {
      method: 'patch',
      path: '/control/tokens/:token_id',
      capability: 'tokens',
      handle: async (req, res, deps) => {
        const id = String(req.params['token_id']);
        const body = await readBody(req, PatchTokenBody, true);
        const tokens = deps.tokens;
        if (tokens.get(id) === null) throw new ApiError('not_found', 'no token with this id');
        const record = tokens.setEnabled(id, body.enabled);
        if (record === null) throw new ApiError('not_found', 'no token with this id');
        json(res, 200, record);
      },
    },
    {
      method: 'delete',
      path: '/control/tokens/:token_id',
      capability: 'tokens',
      handle: (req, res, deps) => {
        const id = String(req.params['token_id']);
        if (!deps.tokens.delete(id)) throw new ApiError('not_found', 'no token with this id');
        res.status(204).end();
      },
    },
  ];
}

export function createControlApp(ctl: ControlDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('case sensitive routing', true);
  app.set('query parser', 'simple');

  // The settings page and the browser guard, ahead of the secret check (docs/decisions/020-settings-page.md).
  registerSettingsPage(app, { secret: ctl.secret, tokens: () => ctl.deps().tokens });

  app.use((req: Request, res: Response, next: NextFunction) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'no-store');
    const presented = bearerToken(req.headers.authorization);
    if (presented === null) {
      next(new ApiError('unauthorized', 'send Authorization: Bearer <control secret>', REALM));
      return;
    }
    if (!secretMatches(presented, ctl.secret)) {
      next(new ApiError('unauthorized', 'the control secret is not recognized', REALM));
      return;
    }
    next();
  });

  const r = express.Router({ caseSensitive: true });

  // Discovery: the capabilities the table serves, in CONTROL.md's order.
  const routes = controlRouteTable(ctl);
  const served = CAPABILITIES.filter((c) => routes.some((route) => route.capability === c));
  r.get('/control', (_req, res) => {
    json(res, 200, { version: CONTROL_VERSION, capabilities: served });
  });

  for (const route of routes) {
    r[route.method](route.path, (req: Request, res: Response) => route.handle(req, res, ctl.deps()));
  }
  app.use(r);

  app.use((req: Request, _res: Response, next: NextFunction) => {
    next(new ApiError('not_found', `no control route ${req.method} ${clip(req.path, 80)}`));
  });

  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const apiError = toApiError(err);
    if (apiError.code === 'internal') (ctl.logError ?? defaultLogError)(err, req);
    sendError(res, apiError);
  });

  return app;
}

/**
 * Sends the 204, then restarts in the same tick: the answer is on its way
 * before the restart starts, and no other request can be served in between.
 * A failed restart leaves the Automation API answering 503 until a later
 * restart succeeds; it is logged, since the client already has its answer.
 */
function answerThenRestart(res: Response, ctl: ControlDeps): void {
  res.status(204).end();
  try {
    ctl.restart();
  } catch (err) {
    (ctl.logError ?? defaultLogError)(err, res.req);
  }
}

function defaultLogError(err: unknown, req: Request): void {
  logControlFailure(fallbackLogger(), err, req);
}

/** A Control API failure as a log line: the request by id, method and Express route pattern (/control/tokens/:id), never the raw path. */
export function logControlFailure(logger: Logger, err: unknown, req: Request): void {
  const route = (req.route as { path?: unknown } | undefined)?.path;
  logger.error({ listener: 'control', ...requestFields(req, typeof route === 'string' ? route : null), err }, 'request failed');
}
