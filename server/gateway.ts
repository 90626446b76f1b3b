/**
 * The gateway's lifecycle: open the store, build the application, serve the
 * Automation API and (when enabled) the Control API, restart in place, stop.
 *
 * The API listener is a plain node:http server whose request handler hands
 * each request to the *current* Express app. A restart (CONTROL.md, Restart)
 * closes every open API connection (which ends SSE streams), closes and
 * reopens the database and builds new dependencies and a new app, so startup
 * settings are re-read, while the listening socket, and so the port, stays
 * the same. Simulated devices live in one DeviceCatalog that outlives
 * restarts, as a plugged-in device outlives an application restart.
 *
 * See docs/decisions/002-startup-and-defaults.md and 008-control-api.md.
 */
import { accessSync, constants, mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { createApp, logFailure } from './app.ts';
import { RealDeviceCatalog, type DeviceCatalog } from './adapters/devices.ts';
import { createControlApp, logControlFailure } from './control/app.ts';
import { loadOrCreateSecret } from './control/secret.ts';
import { createDeps, dataPaths, deviceLog, type AppDeps } from './deps.ts';
import { ApiError, sendError } from './kernel/errors.ts';
import { handleClientError } from './kernel/http/client-error.ts';
import { fallbackLogger, type Logger } from './kernel/http/logger.ts';
import {
  applyConnectionLimits,
  CONTROL_MAX_CONNECTIONS,
  resolveLimits,
  serverOptions,
  type ConnectionLimits,
} from './kernel/http/connection-limits.ts';
import type { ControlOptions } from './startup/options.ts';
import { openDatabase, type Database } from './kernel/store/database.ts';
import { tightenDir } from './kernel/store/owner-only.ts';
import type { Server as HttpsServer } from 'node:https';
import { createLanServer, LAN_DEFAULTS } from './lan/lan-listener.ts';
import { loadOrCreateTlsMaterial, tlsPaths, type TlsMaterial } from './lan/self-signed-cert.ts';
import { SCOPES } from './kernel/scopes.ts';

export interface GatewayOptions {
  host: string;
  /** 0 picks a free port; `api.port` reports the real one. */
  port: number;
  dataDir: string;
  /** null: no Control API listener. */
  control: ControlOptions | null;
  /** Switch the Automation API on at start (stored, as the settings switch would). */
  enableApi?: boolean;
  /** Tests: check every JSON reply against its schema. */
  validateResponses?: boolean;
  /** Tests: where to look for pocketsphinx models (the default looks in the system folders). */
  pocketsphinxRoots?: readonly string[];
  /** Where the gateway logs (failures, listener problems, device notices); standard error at level info by default (kernel/http/logger.ts). */
  logger?: Logger;
  /** One access line per API request in that log (MAS_ACCESS_LOG); off by default. */
  accessLog?: boolean;
  /**
   * The device catalog, made once and kept across restarts. The composition
   * root plugs the simulator's virtual devices in here (server/main.ts); the
   * default lists the real devices only.
   */
  makeDevices?: (log: (line: string) => void) => DeviceCatalog;
  /** LAN listener address, used while settings.lan_enabled is on at startup (default 0.0.0.0; tests use 127.0.0.1). */
  lanHost?: string;
  /** LAN listener port (default 8421; 0 picks a free one). */
  lanPort?: number;
  /**
   * Slow-client timeouts and caps of every listener (docs/decisions/023-slow-clients.md);
   * each one missing takes its production default (CONNECTION_DEFAULTS). Tests use short ones.
   */
  limits?: Partial<ConnectionLimits>;
}

export interface BoundAddress {
  host: string;
  port: number;
  /** A URL a local client can use (a wildcard host is reached through loopback). */
  url: string;
}

/** A start that could not complete; the message is one line, fit to show as is. */
export class GatewayStartError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GatewayStartError';
  }
}

/** Name of the token minted at every start for the person who started the gateway. */
const STARTUP_TOKEN_NAME = 'startup';

export class Gateway {
  readonly dataDir: string;
  /** The first_party token minted at this start (all four scopes); the previous start's is deleted. */
  readonly startupToken: string;
  /** The Control API secret, or null when the Control API is off. */
  readonly controlSecret: string | null;
  /** The file holding the control secret, or null when it was given at start (or control is off). */
  readonly controlSecretFile: string | null;

  readonly #opts: GatewayOptions;
  readonly #devices: DeviceCatalog;
  readonly #apiServer: Server;
  readonly #controlServer: Server | null;
  #db: Database | null;
  #deps: AppDeps;
  #app: Express | null;
  #stopping: Promise<void> | null = null;
  /** The HTTPS LAN listener while LAN mode is on (docs/decisions/016-lan-mode.md). */
  #lanServer: HttpsServer | null = null;
  /** The last LAN listener change a restart started (opening is asynchronous). */
  #lanChange: Promise<void> = Promise.resolve();

  /**
   * The gateway and its listeners (not listening yet): each listener hands
   * its requests to this gateway's current app and dependencies, so nothing
   * is bound after construction.
   */
  private constructor(init: {
    opts: GatewayOptions;
    devices: DeviceCatalog;
    db: Database;
    deps: AppDeps;
    startupToken: string;
    secret: { secret: string; file: string | null } | null;
    limits: ConnectionLimits;
    logger: Logger;
  }) {
    this.#opts = init.opts;
    this.dataDir = init.opts.dataDir;
    this.#devices = init.devices;
    this.#db = init.db;
    this.#deps = init.deps;
    this.#app = createApp(init.deps);
    this.startupToken = init.startupToken;
    this.controlSecret = init.secret?.secret ?? null;
    this.controlSecretFile = init.secret?.file ?? null;
    // requireHostHeader off: node's own refusal has no body; app.ts refuses a missing Host with the envelope.
    // requestTimeout 0 (serverOptions): node's default (300 s for a whole request) would cut a 2 GB import
    // slower than ~6.7 MB/s; slow clients are bounded piece by piece instead (kernel/http/connection-limits.ts).
    this.#apiServer = createServer({ ...serverOptions(init.limits), requireHostHeader: false }, (req, res) => this.#handle(req, res));
    applyConnectionLimits(this.#apiServer, init.limits);
    this.#apiServer.on('clientError', handleClientError);
    this.#controlServer = null;
    if (init.opts.control !== null && init.secret !== null) {
      const logger = init.logger;
      const controlApp = createControlApp({
        secret: init.secret.secret,
        deps: () => this.#deps,
        restart: () => this.restart(),
        logError: (err, req) => logControlFailure(logger, err, req),
      });
      this.#controlServer = createServer(serverOptions(init.limits), controlApp);
      applyConnectionLimits(this.#controlServer, init.limits, CONTROL_MAX_CONNECTIONS);
      this.#controlServer.on('clientError', handleClientError);
    }
  }

  /** Opens the data folder and starts listening. Failures are GatewayStartErrors with a one-line message. */
  static async start(opts: GatewayOptions): Promise<Gateway> {
    const logger = opts.logger ?? fallbackLogger();
    let limits: ConnectionLimits;
    try {
      limits = resolveLimits(opts.limits);
    } catch (err) {
      throw new GatewayStartError(err instanceof Error ? err.message : String(err), { cause: err });
    }
    const paths = dataPaths(opts.dataDir);
    prepareDataDir(opts.dataDir);

    const devices = opts.makeDevices?.(deviceLog(logger)) ?? new RealDeviceCatalog();
    const db = openStore(paths.database);
    let gateway: Gateway;
    try {
      const deps = buildDeps(opts, db, devices, logger);
      if (opts.enableApi === true) deps.settings.update({ automation_api_enabled: true });
      deps.tokens.deleteByName(STARTUP_TOKEN_NAME);
      const startupToken = deps.tokens.create(
        { name: STARTUP_TOKEN_NAME, scopes: [...SCOPES], origin: 'loopback', kind: 'first_party' },
        deps.clock.now(),
      ).token;

      let secret: { secret: string; file: string | null } | null = null;
      if (opts.control !== null) {
        secret = opts.control.secret !== null ? { secret: opts.control.secret, file: null } : readSecret(paths.controlSecret);
      }

      gateway = new Gateway({ opts, devices, db, deps, startupToken, secret, limits, logger });
    } catch (err) {
      db.close();
      throw startError(err);
    }
    try {
      await gateway.#listen();
    } catch (err) {
      await gateway.#closeListeners();
      db.close();
      throw startError(err);
    }
    return gateway;
  }

  /** The first start's work and listeners: the workers start, then the API, the Control API and the LAN listener listen. */
  async #listen(): Promise<void> {
    const opts = this.#opts;
    const logger = opts.logger ?? fallbackLogger();
    this.#deps.start();
    await listen(this.#apiServer, opts.host, opts.port, 'the Automation API');
    if (this.#controlServer !== null && opts.control !== null) {
      await listen(this.#controlServer, opts.control.host, opts.control.port, 'the Control API');
    }
    // LAN mode is a startup setting: read here and at every restart, never live.
    if (this.#deps.settings.get().lan_enabled) await this.#openLan();
    for (const server of [this.#apiServer, this.#controlServer]) {
      server?.on('error', (err) => logger.error({ listener: server === this.#apiServer ? 'api' : 'control', err }, 'listener error'));
    }
  }

  /** Every listener this gateway opened closes: at stop, and when a start failed half-way. */
  async #closeListeners(): Promise<void> {
    const lan = this.#lanServer;
    this.#lanServer = null;
    await Promise.all([
      closeServer(this.#apiServer),
      this.#controlServer === null ? undefined : closeServer(this.#controlServer),
      lan === null ? undefined : closeServer(lan),
    ]);
  }

  /** Where the Automation API listens. */
  get api(): BoundAddress {
    return boundAddress(this.#apiServer, this.#opts.host);
  }

  /** Where the Control API listens, or null when it is off. */
  get control(): BoundAddress | null {
    if (this.#controlServer === null || this.#opts.control === null) return null;
    return boundAddress(this.#controlServer, this.#opts.control.host);
  }

  /** Where the HTTPS LAN listener listens, or null while LAN mode is off. */
  get lan(): BoundAddress | null {
    if (this.#lanServer === null || !this.#lanServer.listening) return null;
    const bound = boundAddress(this.#lanServer, this.#opts.lanHost ?? LAN_DEFAULTS.host);
    return { ...bound, url: bound.url.replace(/^http:/, 'https:') };
  }

  /** Resolves once the LAN listener change started by the last restart has happened (tests wait on it). */
  lanSettled(): Promise<void> {
    return this.#lanChange;
  }

  /** The current application dependencies (replaced at every restart). */
  get deps(): AppDeps {
    return this.#deps;
  }

  /**
   * Restarts with the same data (CONTROL.md, Restart): closes every open API
   * connection (SSE streams end), closes and reopens the database, rebuilds
   * the dependencies and the app, so startup settings are re-read. The
   * listening socket stays; simulated devices stay plugged in; the startup
   * token is not re-minted (it belongs to the process start). Synchronous, so
   * no request is served half-way through it.
   */
  restart(): void {
    if (this.#stopping !== null) throw new Error('the gateway is stopping');
    this.#app = null; // until the new app is ready, the API answers 503
    this.#apiServer.closeAllConnections();
    this.#lanServer?.closeAllConnections();
    this.#deps.shutdown(); // the job worker stops; undelivered work is not replayed
    this.#db?.close();
    this.#db = null;
    const db = openStore(dataPaths(this.#opts.dataDir).database);
    try {
      this.#deps = buildDeps(this.#opts, db, this.#devices, this.#opts.logger ?? fallbackLogger());
    } catch (err) {
      db.close();
      throw err;
    }
    this.#db = db;
    this.#app = createApp(this.#deps);
    this.#deps.start();
    this.#applyLanSetting();
  }

  /**
   * Restart re-reads lan_enabled: switched off, the LAN listener stops
   * accepting at once; switched on, it opens (asynchronously; lanSettled()
   * says when). A LAN listener that cannot open is logged, and the loopback
   * API carries on.
   */
  #applyLanSetting(): void {
    const wanted = this.#deps.settings.get().lan_enabled;
    const logger = this.#opts.logger ?? fallbackLogger();
    if (!wanted && this.#lanServer !== null) {
      const server = this.#lanServer;
      this.#lanServer = null;
      // Stop accepting now; a listener still opening is closed once it has opened.
      const closing = server.listening ? closeServer(server) : null;
      this.#lanChange = this.#lanChange.then(() => closing ?? closeServer(server));
    } else if (wanted && this.#lanServer === null) {
      this.#lanChange = this.#lanChange
        .then(() => (this.#stopping === null ? this.#openLan() : undefined))
        .catch((err: unknown) => logger.error({ listener: 'lan', err }, 'LAN listener not started'));
    }
  }

  /** Opens the HTTPS LAN listener with the data folder's self-signed certificate (made on first use). */
  async #openLan(): Promise<void> {
    let tls: TlsMaterial;
    try {
      tls = loadOrCreateTlsMaterial(this.dataDir);
    } catch (err) {
      throw new GatewayStartError(`cannot prepare the LAN certificate in ${tlsPaths(this.dataDir).dir}: ${errnoText(err)}`, { cause: err });
    }
    const server = createLanServer(tls, (req, res) => this.#handle(req, res), resolveLimits(this.#opts.limits));
    this.#lanServer = server;
    try {
      await listen(server, this.#opts.lanHost ?? LAN_DEFAULTS.host, this.#opts.lanPort ?? LAN_DEFAULTS.port, 'the LAN listener');
    } catch (err) {
      if (this.#lanServer === server) this.#lanServer = null;
      throw err;
    }
    server.on('error', (err) => (this.#opts.logger ?? fallbackLogger()).error({ listener: 'lan', err }, 'listener error'));
  }

  /** Stops both listeners (open connections are closed) and closes the store. Idempotent. */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      this.#app = null;
      await this.#lanChange;
      await this.#closeListeners();
      this.#deps.shutdown();
      this.#db?.close();
      this.#db = null;
      // The simulated devices end with the application: players, sinks, the private PulseAudio daemon.
      const backend = this.#devices.virtualBackend();
      backend?.dispose();
      await backend?.disposed();
    })();
    return this.#stopping;
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const app = this.#app;
    if (app === null) unavailable(res);
    else app(req, res);
  }
}

/** A failure of start() as a GatewayStartError with a one-line message. */
function startError(err: unknown): GatewayStartError {
  if (err instanceof GatewayStartError) return err;
  return new GatewayStartError(oneLine(err instanceof Error ? err.message : String(err)), { cause: err });
}

function buildDeps(opts: GatewayOptions, db: Database, devices: DeviceCatalog, logger: Logger): AppDeps {
  return createDeps({
    db,
    dataDir: opts.dataDir,
    devices,
    validateResponses: opts.validateResponses ?? false,
    ...(opts.pocketsphinxRoots === undefined ? {} : { pocketsphinxRoots: opts.pocketsphinxRoots }),
    logError: (err, req) => logFailure(logger, err, req),
    detection: { log: (line) => logger.warn({ component: 'meeting-detection' }, line.replace(/^\[meeting-detection\] /, '')) },
    ...(opts.accessLog === true ? { accessLog: logger } : {}),
  });
}

function prepareDataDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    tightenDir(dir); // an existing folder keeps its mode otherwise; it holds the secrets (decision 022)
  } catch (err) {
    throw new GatewayStartError(`cannot create the data folder ${dir}: ${errnoText(err)}`, { cause: err });
  }
  try {
    accessSync(dir, constants.R_OK | constants.W_OK | constants.X_OK);
  } catch (err) {
    throw new GatewayStartError(`cannot use the data folder ${dir}: ${errnoText(err)}`, { cause: err });
  }
}

function openStore(file: string): Database {
  try {
    return openDatabase(file);
  } catch (err) {
    throw new GatewayStartError(`cannot open the database ${file}: ${oneLine(errnoText(err))}`, { cause: err });
  }
}

function readSecret(file: string): { secret: string; file: string } {
  try {
    const { secret } = loadOrCreateSecret(file);
    return { secret, file };
  } catch (err) {
    throw new GatewayStartError(oneLine(err instanceof Error ? err.message : String(err)), { cause: err });
  }
}

/** The kernel caps it at net.core.somaxconn. */
const LISTEN_BACKLOG = 4_096;

function listen(server: Server, host: string, port: number, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      reject(new GatewayStartError(listenErrorText(err, host, port, what), { cause: err }));
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    // A deeper accept queue than node's 511: a burst of a thousand connections should queue, not wait for SYN retries.
    server.listen({ host, port, exclusive: true, backlog: LISTEN_BACKLOG });
  });
}

function listenErrorText(err: NodeJS.ErrnoException, host: string, port: number, what: string): string {
  const where = `${formatHost(host)}:${port}`;
  switch (err.code) {
    case 'EADDRINUSE':
      return `cannot serve ${what} on ${where}: the port is already in use (is another gateway running?)`;
    case 'EACCES':
      return `cannot serve ${what} on ${where}: permission denied for this port`;
    case 'EADDRNOTAVAIL':
      return `cannot serve ${what} on ${where}: this machine has no such address`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot serve ${what} on ${where}: the host name does not resolve`;
    default:
      return `cannot serve ${what} on ${where}: ${oneLine(err.message)}`;
  }
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function boundAddress(server: Server, configuredHost: string): BoundAddress {
  const address = server.address() as AddressInfo | null;
  const port = address?.port ?? 0;
  const host = address?.address ?? configuredHost;
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return { host, port, url: `http://${formatHost(reachable)}:${port}` };
}

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** While a restart is in progress (or after a failed one), the API answers 503. */
function unavailable(res: ServerResponse): void {
  sendError(res, new ApiError('service_unavailable', 'the application is restarting; try again'));
}

function errnoText(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e.code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOTDIR':
    case 'EEXIST':
      return 'a part of the path is a file, not a folder';
    case 'EROFS':
      return 'the file system is read-only';
    case 'ENOSPC':
      return 'no space left on the device';
    default:
      return err instanceof Error ? err.message : String(err);
  }
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
