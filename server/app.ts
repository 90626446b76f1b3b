/**
 * createApp(deps): the Express application of the Automation API, without a
 * listener (supertest drives it directly; gateway.ts puts it on a socket).
 *
 * The router is built from the operations table (kernel/http/route-table.ts): for
 * every row, one chain of authorize → parse path, query and body → handler →
 * reply. Anything that is not a row (an unknown path, a known path with
 * another method) ends in the fallback, and every failure ends in the one
 * error writer of errors.ts.
 */
import type { IncomingMessage } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { authorize, type AuthDeps } from './kernel/auth.ts';
import { ApiError, sendError, toApiError } from './kernel/errors.ts';
import { hostOriginRefusal } from './kernel/http/host-origin.ts';
import type { QueryParam } from './kernel/http/query.ts';
import { RouteTable, type RouteMatch } from './kernel/http/route-table.ts';
import { fallbackLogger, type Logger } from './kernel/http/logger.ts';
import { accessLog, requestFields } from './kernel/http/request-log.ts';
import { readJsonBody } from './kernel/http/json-body.ts';
import { OPERATIONS, type Operation, type OperationId } from './operations.ts';
import type { Handler, HandlerContext, Reply } from './http-types.ts';
import { wireHandlers, type FeatureDeps } from './handlers.ts';
import { formatIssues } from './kernel/http/validation.ts';
import { clip } from '../common/clip.ts';

/** What the Automation API's app is made of; the composition root (deps.ts) builds it. */
export interface ApiDeps {
  /** Each feature's services, handed to that feature's handlers only. */
  features: FeatureDeps;
  /** What the gates read on every request: settings, tokens, counters. */
  auth: AuthDeps;
  /** Tests turn this on: every JSON reply is checked against its schema in the operations table. */
  validateResponses: boolean;
  /** Where unexpected failures are reported (never to the client). */
  readonly logError: (err: unknown, req?: IncomingMessage) => void;
  /** With a logger here, one access line per request (MAS_ACCESS_LOG; kernel/http/request-log.ts). Null: nothing runs per request. */
  readonly accessLog: Logger | null;
}

export function createApp(deps: ApiDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('case sensitive routing', true);
  app.set('query parser', 'simple');

  // One middleware in front of everything, for every request: Express runs
  // each middleware and each route as a layer of its own, and that walk was a
  // large share of a cheap call (docs/decisions/065-request-path.md).
  // The one table (TABLE, below) finds the row; each row's handler and its feature's services are paired once, here.
  const handlers = wireHandlers(deps.features);
  const routes = new Map<Operation, Route>();
  for (const op of OPERATIONS as readonly Operation[]) {
    const wired = handlers[op.operationId as OperationId];
    routes.set(op, route(op, wired.handler, wired.deps));
  }
  const auth = deps.auth;
  if (deps.accessLog !== null) app.use(accessLog(deps.accessLog, routeTemplate));
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
    let found: RouteMatch<Operation> | null;
    try {
      found = TABLE.match(req.method, req.path);
    } catch (err) {
      next(err); // a path parameter that is not valid percent-encoding
      return;
    }
    // Every row of TABLE has its Route (the loop above); found and routed go together.
    const entry = found === null ? undefined : routes.get(found.entry);
    if (found === null || entry === undefined) {
      next(); // the fallback below: 404, or 405 with Allow
      return;
    }
    req.params = found.params;
    // Served from a microtask rather than inside the request event. Served
    // inside it, the live-recording end-to-end test lost the start of its
    // capture (features/recording/recording-e2e.test.ts: the played script
    // began before the captured WAV did); the mechanism is not understood
    // yet, and one microtask per request is cheap next to Express's layers.
    const { params } = found;
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
    if (apiError.code === 'internal') deps.logError(err, req);
    sendError(res, apiError);
  });

  return app;
}

/** A row of the operations table with what the router needs of it every time, worked out once. */
interface Route {
  op: Operation;
  handler: Handler;
  /** The services of the row's feature, handed to its handler. */
  deps: unknown;
  /** The row's query parameters; empty for most rows, which then never parse the query string. */
  query: readonly [string, QueryParam<unknown>][];
}

function route(op: Operation, handler: Handler, deps: unknown): Route {
  return { op, handler, deps, query: Object.entries(op.query ?? {}) };
}

/**
 * authorize → parse query and body → handler → reply. Synchronous from there
 * to the reply for the rows without a body (most reads); returns a promise
 * only when something is awaited.
 */
function serve(
  route: Route,
  params: Record<string, string>,
  deps: ApiDeps,
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

  const ctx: HandlerContext = { op, caller, params, query, body: undefined, deps: route.deps, req, res };
  if (op.body !== undefined) return serveWithBody(route, ctx, deps);
  return finish(op, handler(ctx), deps, res);
}

async function serveWithBody(route: Route, ctx: HandlerContext, deps: ApiDeps): Promise<void> {
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
  await finish(route.op, route.handler(ctx), deps, ctx.res);
}

function finish(op: Operation, reply: Reply | Promise<Reply>, deps: ApiDeps, res: Response): Promise<void> | undefined {
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
function send(op: Operation, reply: Exclude<Reply, { streamed: true }>, deps: ApiDeps, res: Response): void {
  if (reply.headers !== undefined) for (const name in reply.headers) res.setHeader(name, reply.headers[name]!);
  let text: string;
  if ('text' in reply) {
    text = reply.text;
    res.setHeader('Content-Type', reply.contentType);
  } else {
    if (deps.validateResponses) checkReply(op, reply.status, reply.json);
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

/**
 * The table's rows in one lookup: the router serves them, OPTIONS and 405
 * list the methods of a path, and the logs name a request by its template.
 */
const TABLE = new RouteTable((OPERATIONS as readonly Operation[]).map((op) => ({ method: op.method, path: op.path, entry: op })));

function allowedMethods(path: string): string[] {
  const methods = new Set(TABLE.methodsOf(path));
  if (methods.has('GET')) methods.add('HEAD');
  if (methods.size > 0) methods.add('OPTIONS');
  return [...methods];
}

/** Where the app reports unexpected failures when its owner names no logger: standard error. */
export function defaultLogError(err: unknown, req?: IncomingMessage): void {
  logFailure(fallbackLogger(), err, req);
}

/** An unexpected failure of the Automation API as a log line: the request by id, method and route template, and the error. */
export function logFailure(logger: Logger, err: unknown, req?: IncomingMessage): void {
  if (req === undefined) logger.error({ listener: 'api', err }, 'background work failed');
  else logger.error({ listener: 'api', ...requestFields(req, routeTemplate(req)), err }, 'request failed');
}

/** The route template that serves a request (/v1/meetings/{id}), or null: what logs name in place of the raw path. */
function routeTemplate(req: IncomingMessage): string | null {
  const url = req.url ?? '';
  const q = url.indexOf('?');
  try {
    return TABLE.match(req.method ?? '', q < 0 ? url : url.slice(0, q))?.entry.path ?? null;
  } catch {
    return null; // a path parameter that is not valid percent-encoding
  }
}
