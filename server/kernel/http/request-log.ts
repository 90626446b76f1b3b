/**
 * Request ids and the access log (docs/decisions/064-structured-logs.md).
 *
 * A request id ties the log lines of one request together (its access line
 * and any failure it met). API.md says nothing of request ids, so the API
 * neither requires nor returns one: an incoming X-Request-Id made of 1 to 128
 * letters, digits and . _ : - is used as it is (a client or a proxy in front
 * can then find its own request in the log); anything else is replaced by an
 * id made here. The id is made the first time a log line needs it, so a
 * request that logs nothing costs nothing.
 *
 * The access log (MAS_ACCESS_LOG=1, off by default) writes one info line per
 * request when its response ends: id, method, route template (never the raw
 * path or query: a token pasted into either would land in the log), status,
 * milliseconds, or aborted when the client left first.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from './logger.ts';

const ids = new WeakMap<IncomingMessage, string>();
/** Ids made here: this process's prefix and a counter, unique within a run and across restarts of it. */
const PREFIX = randomBytes(4).toString('hex');
let made = 0;

const GIVEN_ID = /^[\w.:-]{1,128}$/;

export function requestId(req: IncomingMessage): string {
  let id = ids.get(req);
  if (id === undefined) {
    const given = req.headers['x-request-id'];
    id = typeof given === 'string' && GIVEN_ID.test(given) ? given : `${PREFIX}-${(++made).toString(36)}`;
    ids.set(req, id);
  }
  return id;
}

/** What names a request in a log line: its id, method and route template (null when no route serves it). */
export function requestFields(req: IncomingMessage, route: string | null): { req_id: string; method: string; route: string | null } {
  return { req_id: requestId(req), method: req.method ?? '', route };
}

/**
 * Middleware (Express or plain node:http) that writes the access line of each
 * request when its response closes. Installed only when the access log is on.
 */
export function accessLog(logger: Logger, routeOf: (req: IncomingMessage) => string | null) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    const started = process.hrtime.bigint();
    res.once('close', () => {
      const ms = Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100;
      const fields = requestFields(req, routeOf(req));
      if (res.writableFinished) logger.info({ ...fields, status: res.statusCode, ms }, 'request');
      else logger.info({ ...fields, status: res.headersSent ? res.statusCode : null, ms, aborted: true }, 'request aborted');
    });
    next();
  };
}
