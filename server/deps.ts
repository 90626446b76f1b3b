/**
 * Builds everything createApp needs from an open database and the data
 * folder. gateway.ts calls it at start and at every restart; tests call it
 * with an in-memory database.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AppDeps } from './app.ts';
import { systemClock, type Clock } from './adapters/clock.ts';
import { DeviceCatalog } from './adapters/devices.ts';
import { DEFAULT_POCKETSPHINX_ROOTS, ModelCatalog } from './adapters/models.ts';
import { ConfigService } from './domain/config-service.ts';
import { MeetingsService } from './domain/meetings-service.ts';
import { SearchService } from './domain/search-service.ts';
import { HealthCounters } from './health-counters.ts';
import type { Database } from './store/database.ts';
import { SettingsRepo } from './store/settings-repo.ts';
import { TokensRepo } from './store/tokens-repo.ts';
import { SERVER_VERSION } from './version.ts';

/** Where things live inside the data folder. */
export function dataPaths(dataDir: string) {
  return {
    database: join(dataDir, 'gateway.sqlite'),
    recordings: join(dataDir, 'recordings'),
    models: join(dataDir, 'models'),
    controlSecret: join(dataDir, 'control-secret'),
  };
}

export interface DepsOptions {
  db: Database;
  dataDir: string;
  clock?: Clock;
  /** Carried across restarts, so simulated devices stay plugged in. */
  devices?: DeviceCatalog;
  validateResponses?: boolean;
  pocketsphinxRoots?: readonly string[];
}

export function createDeps(opts: DepsOptions): AppDeps {
  const paths = dataPaths(opts.dataDir);
  mkdirSync(paths.recordings, { recursive: true, mode: 0o700 });
  const clock = opts.clock ?? systemClock;
  return {
    version: SERVER_VERSION,
    clock,
    counters: new HealthCounters(),
    settings: new SettingsRepo(opts.db),
    tokens: new TokensRepo(opts.db),
    meetings: new MeetingsService({ db: opts.db, clock, recordingsDir: paths.recordings }),
    search: new SearchService({ db: opts.db }),
    config: new ConfigService({ db: opts.db, clock }),
    devices: opts.devices ?? new DeviceCatalog(),
    models: new ModelCatalog({ pocketsphinxRoots: opts.pocketsphinxRoots ?? DEFAULT_POCKETSPHINX_ROOTS, customDir: paths.models }),
    validateResponses: opts.validateResponses ?? false,
  };
}
