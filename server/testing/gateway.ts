/**
 * Shared setup for the gateway's tests: a fresh in-memory store, a temporary
 * data folder, the Automation API switched on, response validation on, and a
 * way to mint tokens with any scopes.
 *
 * Imported by *.test.ts files only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Express } from 'express';
import { createApp } from '../app.ts';
import { createDeps, type AppDeps } from '../deps.ts';
import type { PipelineParts } from '../real-pipeline.ts';
import type { ImportLimits } from '../features/jobs/imports/budget.ts';
import { openDatabase, type Database } from '../kernel/store/database.ts';
import { RESET_SETTINGS } from '../kernel/store/settings-repo.ts';
import type { TokenKind, TokenOrigin } from '../kernel/store/tokens-repo.ts';
import type { GatewayOptions } from '../gateway.ts';
import { VirtualDeviceCatalog } from '../../simulator/devices/catalog.ts';

/** The simulator's virtual devices, plugged in as server/main.ts does. */
export function simulatedDevices(log: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): VirtualDeviceCatalog {
  return new VirtualDeviceCatalog({ log });
}
import { createLogger } from '../kernel/http/logger.ts';

export interface TestGateway {
  app: Express;
  deps: AppDeps;
  db: Database;
  dataDir: string;
  /** What the app would have logged as unexpected failures (500s). */
  errors: unknown[];
  /** Mints a token and returns its raw value. */
  token(scopes: readonly string[], opts?: { origin?: TokenOrigin; kind?: TokenKind; name?: string }): string;
  /** `Authorization` header value for a token with these scopes. */
  bearer(scopes: readonly string[]): string;
  close(): void;
}

export interface TestGatewayOptions {
  pocketsphinxRoots?: readonly string[];
  /** Replaces parts of the audio pipeline (unit tests of the job machinery). */
  pipeline?: Partial<PipelineParts>;
  importLimits?: ImportLimits;
}

export function testGateway(opts: TestGatewayOptions = {}): TestGateway {
  const dataDir = mkdtempSync(join(tmpdir(), 'mas-test-'));
  const db = openDatabase(':memory:');
  // Unexpected failures are collected, so a test can show what broke behind a 500.
  const errors: unknown[] = [];
  const deps = createDeps({
    db,
    dataDir,
    validateResponses: true,
    logError: (err) => errors.push(err),
    makeDevices: () => simulatedDevices(),
    pocketsphinxRoots: opts.pocketsphinxRoots ?? [],
    ...(opts.pipeline !== undefined ? { pipeline: opts.pipeline } : {}),
    ...(opts.importLimits !== undefined ? { importLimits: opts.importLimits } : {}),
  });
  // Tests start from the state the Control API's reset gives: API on, licensed.
  deps.settings.update(RESET_SETTINGS);
  const app = createApp(deps);
  deps.start();
  const token: TestGateway['token'] = (scopes, o = {}) =>
    deps.tokens.create({ name: o.name ?? 'test', scopes, origin: o.origin ?? 'loopback', kind: o.kind ?? 'standard' }, new Date()).token;
  return {
    app,
    deps,
    db,
    dataDir,
    errors,
    token,
    bearer: (scopes) => `Bearer ${token(scopes)}`,
    close() {
      deps.shutdown();
      db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const ALL_SCOPES = ['read', 'record', 'write', 'delete'] as const;

/**
 * Options for a real Gateway.start in a test: loopback and ephemeral ports,
 * the Control API on with a generated secret, the Automation API switched on,
 * every reply checked against its schema, no recognizer models, nothing
 * logged. `extra` overrides any of them (a secret, limits, a LAN listener…).
 */
export function listenerTestOptions(dataDir: string, extra: Partial<GatewayOptions> = {}): GatewayOptions {
  return {
    host: '127.0.0.1',
    port: 0,
    dataDir,
    control: { host: '127.0.0.1', port: 0, secret: null },
    enableApi: true,
    validateResponses: true,
    pocketsphinxRoots: [],
    logger: createLogger({ level: 'silent' }),
    makeDevices: simulatedDevices,
    ...extra,
  };
}
