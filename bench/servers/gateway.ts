/**
 * The gateway for the benchmarks, built the way server/gateway.ts builds it
 * but without depending on it: openDatabase + createDeps + createApp on
 * node:http with the listener's connection limits (server/kernel/http/connection-limits.ts,
 * which run for every request too), 127.0.0.1, an ephemeral port. The API is switched on with the
 * Control API's reset settings and a read token is minted.
 *
 * Before listening it seeds `meetings` meetings of `segments` segments each
 * through MeetingsService.create (the rows the real service writes), in
 * batches that each run in one transaction, and reports how long that took.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../server/app.ts';
import { createDeps, dataPaths } from '../../server/deps.ts';
import { applyConnectionLimits, resolveLimits, serverOptions } from '../../server/kernel/http/connection-limits.ts';
import { openDatabase, transaction } from '../../server/kernel/store/database.ts';
import { RESET_SETTINGS } from '../../server/kernel/store/settings-repo.ts';
import { meetingSeed } from '../corpus.ts';
import { announce, serverArg } from '../lib.ts';

export interface GatewayServerArg {
  dataDir: string;
  meetings: number;
  segments: number;
}

const BATCH = 200;

const arg = serverArg<GatewayServerArg>();
const db = openDatabase(dataPaths(arg.dataDir).database);
const deps = createDeps({ db, dataDir: arg.dataDir, pocketsphinxRoots: [] });
deps.settings.update(RESET_SETTINGS);
const token = deps.tokens.create({ name: 'bench', scopes: ['read'] }, new Date()).token;

const t0 = process.hrtime.bigint();
for (let start = 0; start < arg.meetings; start += BATCH) {
  transaction(db, () => {
    for (let i = start; i < Math.min(arg.meetings, start + BATCH); i++) deps.meetings.create(meetingSeed(i, arg.segments));
  });
}
const seedMs = Number(process.hrtime.bigint() - t0) / 1e6;

const limits = resolveLimits(undefined);
const server = http.createServer({ ...serverOptions(limits), requireHostHeader: false }, createApp(deps));
applyConnectionLimits(server, limits);
server.listen(0, '127.0.0.1', () => {
  announce(
    {
      ready: true,
      port: (server.address() as AddressInfo).port,
      token,
      database: dataPaths(arg.dataDir).database,
      seed_ms: Math.round(seedMs),
      meetings: arg.meetings,
      segments: arg.meetings * arg.segments,
    },
    () => {
      server.close();
      db.close();
    },
  );
});
