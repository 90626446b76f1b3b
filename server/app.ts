/**
 * createApp(deps): the Express application of the Automation API, without a
 * listener (supertest drives it directly; gateway.ts puts it on a socket).
 *
 * The router is built from the operations table (http/route-table.ts): for
 * every row, one chain of authorize → parse path, query and body → handler →
 * reply. Anything that is not a row (an unknown path, a known path with
 * another method) ends in the fallback, and every failure ends in the one
 * error writer of errors.ts.
 */
import type { IncomingMessage } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { authorize, type AuthDeps, type Caller } from './kernel/auth.ts';
import { ApiError, sendError, toApiError } from './kernel/errors.ts';
import { hostOriginRefusal } from './kernel/http/host-origin.ts';
import type { QueryParam } from './kernel/http/query.ts';
import { RouteTable, type RouteMatch } from './kernel/http/route-table.ts';
import { fallbackLogger, type Logger } from './kernel/http/logger.ts';
import { accessLog, requestFields } from './kernel/http/request-log.ts';
import { readJsonBody } from './kernel/http/json-body.ts';
import { OPERATIONS, pathMatcher, type Operation, type OperationId } from './operations.ts';
import type { BodyOf, HasCaller, ParamsOf, QueryOf, ReplyOf } from './kernel/operation-types.ts';
import type { HealthCounters } from './kernel/health-counters.ts';
import type { SettingsRepo } from './kernel/store/settings-repo.ts';
import type { TokensRepo } from './kernel/store/tokens-repo.ts';
import type { Clock } from './adapters/clock.ts';
import type { MeetingsService } from './features/meetings/service.ts';
import type { SearchService } from './features/search/service.ts';
import type { ConfigService } from './features/config/service.ts';
import type { DeviceCatalog } from './adapters/devices.ts';
import type { ModelCatalog } from './adapters/models.ts';
import type { EventBus } from './kernel/events.ts';
import type { JobsService } from './features/jobs/service.ts';
import type { SummaryService } from './features/summaries/service.ts';
import type { ImportBudget } from './features/jobs/imports/budget.ts';
import type { WebhooksService } from './features/webhooks/service.ts';
import type { PairingService } from './features/pairing/service.ts';
import type { RecordingService } from './features/recording/service.ts';
import { HANDLERS } from './handlers.ts';
import { formatIssues } from './kernel/http/validation.ts';
import { clip } from '../common/clip.ts';

export interface AppDeps {
  version: string;
  clock: Clock;
  counters: HealthCounters;
  settings: SettingsRepo;
  tokens: TokensRepo;
  meetings: MeetingsService;
  search: SearchService;
  config: ConfigService;
  devices: DeviceCatalog;
  models: ModelCatalog;
  bus: EventBus;
  jobs: JobsService;
  summaries: SummaryService;
  /** Webhooks: registration, approval, delivery (features/webhooks/service.ts). */
  webhooks: WebhooksService;
  /** Pairing requests, in memory (features/pairing/service.ts). */
  pairing: PairingService;
  /** Live recording (features/recording/service.ts). */
  recording: RecordingService;
  importBudget: ImportBudget;
  /** Where import uploads are written as they arrive. */
  uploadsDir: string;
  /** Throws 422 invalid_request for an import provider or model this build cannot use. */
  checkRecognizer(provider: string | undefined, model: string | undefined): void;
  /** Starts the job worker (after recovering jobs a stop interrupted). */
  start(): void;
  /** Stops the job worker and the summary runs, before the store closes (restart, quit). */
  shutdown(): void;
  /** Tests turn this on: every JSON reply is checked against its schema in the operations table. */
  validateResponses?: boolean;
  /** Where unexpected failures are reported (never to the client). */
  logError?: (err: unknown, req?: Request) => void;
  /** With a logger here, one access line per request (MAS_ACCESS_LOG; http/request-log.ts). Off: nothing runs per request. */
  accessLog?: Logger;
}

export interface HandlerContext {
  op: Operation;
  caller: Caller | null;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  deps: AppDeps;
  req: Request;
  /** For the handlers that stream (SSE waits); every other handler returns a Reply. */
  res: Response;
}

export type Reply =
  | { status: number; json: unknown; headers?: Record<string, string> }
  | { status: number; text: string; contentType: string; headers?: Record<string, string> }
  /** The handler wrote the response itself (an SSE stream), or there is nobody left to answer. */
  | { streamed: true };

export type Handler = (ctx: HandlerContext) => Reply | Promise<Reply>;

/** The row of an operationId in the operations table. */
export type RowOf<Id extends OperationId> = Extract<(typeof OPERATIONS)[number], { operationId: Id }>;

/** What a handler receives: the context with params, query and body typed by its row. */
export type ContextFor<Id extends OperationId> = Omit<HandlerContext, 'caller' | 'params' | 'query' | 'body'> & {
  caller: HasCaller<RowOf<Id>> extends true ? Caller : Caller | null;
  params: ParamsOf<RowOf<Id>>;
  query: QueryOf<RowOf<Id>>;
  body: BodyOf<RowOf<Id>>;
};

/** A handler typed by its row: no cast of params, query or body, and replies its row documents. */
export type HandlerFor<Id extends OperationId> = (ctx: ContextFor<Id>) => ReplyOf<RowOf<Id>> | Promise<ReplyOf<RowOf<Id>>>;

/** The handlers of a group of rows; `satisfies HandlersFor<...>` types each one by its row. */
export type HandlersFor<Id extends OperationId> = { [K in Id]: HandlerFor<K> };

export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('case sensitive routing', true);
  app.set('query parser', 'simple');

  // One middleware in front of everything, for every request: Express runs
  // each middleware and each route as a layer of its own, and that walk was a
  // large share of a cheap call (docs/decisions/065-request-path.md).
  const routes = new RouteTable(
    // The one place the typed handlers meet the untyped request: serve() parses
    // params, query and body by this same row, which is what HandlerFor promises.
    (OPERATIONS as readonly Operation[]).map((op) => ({
      method: op.method,
      path: op.path,
      entry: route(op, HANDLERS[op.operationId as OperationId] as Handler),
    })),
  );
  const auth: AuthDeps = { settings: () => deps.settings.get(), tokens: deps.tokens, counters: deps.counters };
  if (deps.accessLog !== undefined) app.use(accessLog(deps.accessLog, routeTemplate));
  app.use((req: Request, res: Response, next: NextFunction) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'no-store');
    // RFC 9112 3.2: an HTTP/1.1 request without Host is refused. node:http
    // would refuse it with a bare 400 (gateway.ts turns that off), so the
    // refusal carries the envelope like every other.
    if (req.httpVersion === '1.1' && req.headers.host === undefined) {
      next(new ApiError('bad_request', 'an HTTP/1.1 request needs a Host header'));
      return;
    }
    // DNS rebinding and cross-site requests are refused before any route, the
    // unauthenticated pairing routes, OPTIONS and HEAD included (kernel/http/host-origin.ts,
    // docs/decisions/022-host-origin-and-secrets.md).
    const refused = hostOriginRefusal(req);
    if (refused !== null) {
      next(refused);
      return;
    }
    // OPTIONS is answered here, before any route: Express's automatic OPTIONS
    // reply would be a 200 with a text body.
    if (req.method === 'OPTIONS') {
      const allowed = allowedMethods(req.path);
      if (allowed.length === 0) {
        next(new ApiError('not_found', `no route ${req.method} ${clip(req.path, 80)}`));
        return;
      }
      res.setHeader('Allow', allowed.join(', '));
      res.status(204).end();
      return;
    }
    let found: RouteMatch<Route> | null;
    try {
      found = routes.match(req.method, req.path);
    } catch (err) {
      next(err); // a path parameter that is not valid percent-encoding
      return;
    }
    if (found === null) {
      next(); // the fallback below: 404, or 405 with Allow
      return;
    }
    req.params = found.params;
    // Served from a microtask rather than inside the request event. Served
    // inside it, the live-recording end-to-end test lost the start of its
    // capture (server/recording/recording-e2e.test.ts: the played script
    // began before the captured WAV did); the mechanism is not understood
    // yet, and one microtask per request is cheap next to Express's layers.
    const { entry, params } = found;
    Promise.resolve()
      .then(() => serve(entry, params, deps, auth, req, res))
      .catch(next);
  });

  app.use((req: Request, res: Response, next: NextFunction) => {
    const allowed = allowedMethods(req.path);
    if (allowed.length === 0) {
      next(new ApiError('not_found', `no route ${req.method} ${clip(req.path, 80)}`));
      return;
    }
    res.setHeader('Allow', allowed.join(', '));
    next(new ApiError('not_found', `${clip(req.path, 80)} does not support ${req.method}; it supports ${allowed.join(', ')}`));
  });

  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const apiError = toApiError(err);
    if (apiError.code === 'internal') (deps.logError ?? defaultLogError)(err, req);
    sendError(res, apiError);
  });

  return app;
}

/** A row of the operations table with what the router needs of it every time, worked out once. */
interface Route {
  op: Operation;
  handler: Handler;
  /** The row's query parameters; empty for most rows, which then never parse the query string. */
  query: readonly [string, QueryParam<unknown>][];
}

function route(op: Operation, handler: Handler): Route {
  return { op, handler, query: Object.entries(op.query ?? {}) };
}

/**
 * authorize → parse query and body → handler → reply. Synchronous from there
 * to the reply for the rows without a body (most reads); returns a promise
 * only when something is awaited.
 */
function serve(
  route: Route,
  params: Record<string, string>,
  deps: AppDeps,
  auth: AuthDeps,
  req: Request,
  res: Response,
): Promise<void> | undefined {
  const { op, handler } = route;
  const caller = authorize(req, op, auth);

  const query: Record<string, unknown> = {};
  if (route.query.length > 0) {
    const rawQuery = req.query as Record<string, string | string[] | undefined>;
    for (const [name, param] of route.query) query[name] = param.parse(name, rawQuery[name]);
  }

  if (op.body !== undefined) return serveWithBody(route, { op, caller, params, query, body: undefined, deps, req, res });
  return finish(op, handler({ op, caller, params, query, body: undefined, deps, req, res }), deps, res);
}

async function serveWithBody(route: Route, ctx: HandlerContext): Promise<void> {
  const spec = route.op.body!;
  let body = await readJsonBody(ctx.req);
  if (body === undefined && spec.required) {
    throw new ApiError('invalid_request', 'this call needs a JSON body');
  }
  if (body !== undefined && !spec.validatedByHandler) {
    const parsed = spec.schema.safeParse(body);
    if (!parsed.success) throw new ApiError('invalid_request', formatIssues(parsed.error.issues));
    body = parsed.data;
  }
  ctx.body = body;
  await finish(route.op, route.handler(ctx), ctx.deps, ctx.res);
}

function finish(op: Operation, reply: Reply | Promise<Reply>, deps: AppDeps, res: Response): Promise<void> | undefined {
  if (reply instanceof Promise) {
    return reply.then((r) => {
      if (!('streamed' in r)) send(op, r, deps, res);
    });
  }
  if (!('streamed' in reply)) send(op, reply, deps, res);
  return undefined;
}

/**
 * Writes a reply with res.end rather than res.send: res.send would apply
 * conditional-GET rules (If-None-Match → 304) that this API does not offer.
 */
function send(op: Operation, reply: Exclude<Reply, { streamed: true }>, deps: AppDeps, res: Response): void {
  if (reply.headers !== undefined) for (const name in reply.headers) res.setHeader(name, reply.headers[name]!);
  let text: string;
  if ('text' in reply) {
    text = reply.text;
    res.setHeader('Content-Type', reply.contentType);
  } else {
    if (deps.validateResponses === true) checkReply(op, reply.status, reply.json);
    text = JSON.stringify(reply.json);
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
  }
  res.statusCode = reply.status;
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text); // node:http itself leaves the body out of a HEAD reply
}

/** Test mode: a reply that breaks its row's response schema is a bug, reported as one. */
function checkReply(op: Operation, status: number, json: unknown): void {
  const spec = op.responses[status];
  if (spec === undefined) throw new Error(`${op.operationId} replied ${status}, which its table row does not list`);
  if (spec.schema === undefined) return;
  const checked = spec.schema.safeParse(json);
  if (!checked.success) throw new Error(`${op.operationId} reply breaks its schema: ${formatIssues(checked.error.issues)}`);
}

const MATCHERS = (OPERATIONS as readonly Operation[]).map((op) => ({ method: op.method.toUpperCase(), re: pathMatcher(op.path) }));

function allowedMethods(path: string): string[] {
  const methods = new Set<string>();
  for (const m of MATCHERS) if (m.re.test(path)) methods.add(m.method);
  if (methods.has('GET')) methods.add('HEAD');
  if (methods.size > 0) methods.add('OPTIONS');
  return [...methods];
}

function defaultLogError(err: unknown, req?: Request): void {
  logFailure(fallbackLogger(), err, req);
}

/** An unexpected failure of the Automation API as a log line: the request by id, method and route template, and the error. */
export function logFailure(logger: Logger, err: unknown, req?: IncomingMessage): void {
  if (req === undefined) logger.error({ listener: 'api', err }, 'background work failed');
  else logger.error({ listener: 'api', ...requestFields(req, routeTemplate(req)), err }, 'request failed');
}

const TEMPLATES = new RouteTable((OPERATIONS as readonly Operation[]).map((op) => ({ method: op.method, path: op.path, entry: op.path })));

/** The route template that serves a request (/v1/meetings/{id}), or null: what logs name in place of the raw path. */
export function routeTemplate(req: IncomingMessage): string | null {
  const url = req.url ?? '';
  const q = url.indexOf('?');
  try {
    return TEMPLATES.match(req.method ?? '', q < 0 ? url : url.slice(0, q))?.entry ?? null;
  } catch {
    return null; // a path parameter that is not valid percent-encoding
  }
}
