/**
 * How long and how many: the limits that keep slow or idle clients from
 * exhausting a listener while other clients keep being served
 * (docs/decisions/023-slow-clients.md). Applied to the loopback API, the LAN
 * listener and the Control API alike.
 *
 *   headers      the whole header block must arrive within headersTimeoutMs
 *                (slowloris: a header line every few seconds); node's own
 *                check, answered by client-error.ts with the envelope
 *   keep-alive   an idle connection between requests is closed after
 *                keepAliveTimeoutMs
 *   idle         no byte either way for idleTimeoutMs while the server waits
 *                for the client → the connection is closed; never while the
 *                server itself is the one working or streaming (an SSE wait)
 *   JSON body    must arrive whole within bodyTimeoutMs (json-body.ts);
 *                a body the app did not read (a refusal answered early)
 *                gets the same time after the answer, then the connection closes
 *   import       a stalled upload ends after uploadIdleMs without a byte, and
 *                a trickle ends when a whole uploadIdleMs window brings fewer
 *                than uploadMinBytesPerWindow bytes (features/jobs/imports/upload.ts);
 *                an honest slow one (above ~1 KiB/s by default) is never cut
 *   header size  maxHeaderBytes (node's parser; above it → 400 envelope)
 *   connections  maxConnections per listener; past it node closes new
 *                connections at once (there is no HTTP to answer yet)
 *
 * There is deliberately no whole-request timeout (node's requestTimeout is
 * 0): a 2 GB import at slow-but-honest speed must finish.
 */
import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Socket } from 'node:net';

export interface ConnectionLimits {
  /** The request line and headers must have arrived within this (slowloris). */
  headersTimeoutMs: number;
  /** A kept-alive connection with no request in flight is closed after this. */
  keepAliveTimeoutMs: number;
  /** No traffic for this long while the server waits for the client → closed. Server-side work and SSE waits are exempt. */
  idleTimeoutMs: number;
  /** A JSON request body must arrive in full within this (a trickled body cannot hold a connection). */
  bodyTimeoutMs: number;
  /** An import upload that sends nothing for this long is given up and its budget place released. */
  uploadIdleMs: number;
  /**
   * The least an import upload must deliver in each uploadIdleMs window, so a trickle just
   * faster than the idle limit cannot hold a budget place for days (1 = idleness only).
   */
  uploadMinBytesPerWindow: number;
  /** Largest request line + header block accepted (node's maxHeaderSize). */
  maxHeaderBytes: number;
  /** Open connections per listener; beyond it new connections are closed at once. 0: no cap. */
  maxConnections: number;
}

/**
 * Production defaults. maxConnections leaves room for the load the service is
 * sized for (10,000 concurrent SSE waits plus 1,000 API connections) and stays
 * below a 20,000 descriptor limit, so the store and child processes still get
 * file descriptors when the cap is reached.
 */
export const CONNECTION_DEFAULTS: Readonly<ConnectionLimits> = {
  headersTimeoutMs: 20_000,
  keepAliveTimeoutMs: 5_000,
  idleTimeoutMs: 120_000,
  bodyTimeoutMs: 30_000,
  uploadIdleMs: 60_000,
  // 64 KiB a minute, about 1 KiB/s: a 2 GB file at that rate would take weeks, so nothing honest is near it.
  uploadMinBytesPerWindow: 64 * 1024,
  maxHeaderBytes: 16 * 1024,
  maxConnections: 16_000,
};

/** The Control API serves one local operator (and test harnesses): a far smaller cap. */
export const CONTROL_MAX_CONNECTIONS = 1_024;

export function resolveLimits(given: Partial<ConnectionLimits> | undefined): ConnectionLimits {
  const limits = { ...CONNECTION_DEFAULTS };
  for (const [key, value] of Object.entries(given ?? {}) as [keyof ConnectionLimits, number | undefined][]) {
    if (value === undefined) continue;
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`connection limit ${key} must be a number >= 0, got ${value}`);
    limits[key] = value;
  }
  return limits;
}

/**
 * Options for node:http / node:https createServer. How often node looks for
 * connections past headersTimeout follows the timeout (its own default, 30 s,
 * would let a slowloris connection live up to 50 s with a 20 s timeout).
 */
export function serverOptions(limits: ConnectionLimits): ServerOptions {
  return {
    requestTimeout: 0,
    headersTimeout: limits.headersTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    maxHeaderSize: limits.maxHeaderBytes,
    connectionsCheckingInterval: Math.max(50, Math.min(5_000, Math.floor(limits.headersTimeoutMs / 4))),
  };
}

/** What a request carries for the body readers (json-body.ts, features/jobs/imports/upload.ts). */
export interface RequestLimits {
  bodyTimeoutMs: number;
  uploadIdleMs: number;
  uploadMinBytesPerWindow: number;
}

const requestLimits = new WeakMap<IncomingMessage, RequestLimits>();
/** The responses in flight on each connection (more than one only when requests are pipelined). */
const inFlight = new WeakMap<Socket, Set<ServerResponse>>();

/** The limits the listener gave this request; the defaults for a request that came another way (supertest). */
export function requestLimitsOf(req: IncomingMessage): RequestLimits {
  return (
    requestLimits.get(req) ?? {
      bodyTimeoutMs: CONNECTION_DEFAULTS.bodyTimeoutMs,
      uploadIdleMs: CONNECTION_DEFAULTS.uploadIdleMs,
      uploadMinBytesPerWindow: CONNECTION_DEFAULTS.uploadMinBytesPerWindow,
    }
  );
}

/** Whether a response on this connection has already sent its status line (a raw error reply would corrupt it). */
export function responseStarted(socket: Socket): boolean {
  for (const res of inFlight.get(socket) ?? []) if (res.headersSent) return true;
  return false;
}

/**
 * Applies the limits to a listener: the idle timeout with its exemptions,
 * the connection cap, and the per-request bookkeeping. Call it right after
 * createServer(serverOptions(limits), handler).
 */
export function applyConnectionLimits(
  server: Server | HttpsServer,
  limits: ConnectionLimits,
  maxConnections = limits.maxConnections,
): void {
  server.timeout = limits.idleTimeoutMs;
  if (maxConnections > 0) server.maxConnections = maxConnections;
  // A listener here takes over node's default (destroy on any socket timeout).
  server.on('timeout', (socket: Socket) => {
    if (!waitingOnServer(socket)) socket.destroy();
  });
  // Before the app's handler, so the body readers find their limits on the request.
  // One limits object per listener, shared by its requests (they only read it).
  const perRequest: RequestLimits = Object.freeze({
    bodyTimeoutMs: limits.bodyTimeoutMs,
    uploadIdleMs: limits.uploadIdleMs,
    uploadMinBytesPerWindow: limits.uploadMinBytesPerWindow,
  });
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => track(req, res, perRequest));
}

/**
 * True when the idle connection is not the client's doing: a response is in
 * flight for a request that has fully arrived, and nothing written is
 * waiting for the client to read it. That is the server still working, or an
 * SSE wait between its heartbeats: cutting either would not protect anyone.
 */
function waitingOnServer(socket: Socket): boolean {
  const responses = inFlight.get(socket);
  if (responses === undefined || responses.size === 0) return false;
  if (socket.writableLength > 0) return false; // the client stopped reading
  for (const res of responses) {
    const req = res.req as IncomingMessage | undefined;
    if (req !== undefined && !req.complete) return false; // the client stopped sending
  }
  return true;
}

function track(req: IncomingMessage, res: ServerResponse, limits: RequestLimits): void {
  requestLimits.set(req, limits);
  const socket = req.socket;
  let responses = inFlight.get(socket);
  if (responses === undefined) {
    responses = new Set();
    inFlight.set(socket, responses);
  }
  responses.add(res);
  // Listeners shared by every response (no closure per request); each event fires once per response.
  res.on('finish', responseFinished);
  res.on('close', responseClosed);
}

function responseFinished(this: ServerResponse): void {
  const req = this.req as IncomingMessage | undefined;
  if (req === undefined) return;
  const socket = req.socket;
  inFlight.get(socket)?.delete(this);
  if (!req.complete && !socket.destroyed) unreadBodyDeadline(req, socket, requestLimitsOf(req).bodyTimeoutMs);
}

function responseClosed(this: ServerResponse): void {
  const socket = (this.req as IncomingMessage | undefined)?.socket;
  if (socket !== undefined) inFlight.get(socket)?.delete(this);
}

/**
 * The answer went out before the request body had fully arrived (a refusal
 * answered early, a 413 whose rest is being discarded): node keeps reading
 * the rest so the connection can be reused, but a body trickled byte by byte
 * must not hold it forever.
 */
function unreadBodyDeadline(req: IncomingMessage, socket: Socket, ms: number): void {
  const timer = setTimeout(() => {
    if (!req.complete) socket.destroy();
  }, ms);
  timer.unref();
  const clear = () => clearTimeout(timer);
  req.once('end', clear);
  socket.once('close', clear);
}
