/**
 * The gateway for the upload benchmark, built like bench/servers/gateway.ts
 * (openDatabase + createDeps + createApp on node:http, 127.0.0.1, an
 * ephemeral port, the API switched on with the Control API's reset
 * settings) over an empty store in its own data folder, with a token that
 * may import and cancel (read, write).
 *
 * The job worker is not started (deps.start() is not called), as in
 * bench/servers/gateway.ts; an import still queues and runs its job, which
 * the benchmark cancels at once: only the upload is measured.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../server/app.ts';
import { createDeps, dataPaths } from '../../server/deps.ts';
import { openDatabase } from '../../server/kernel/store/database.ts';
import { RESET_SETTINGS } from '../../server/kernel/store/settings-repo.ts';
import { announce, serverArg } from '../lib.ts';

export interface GatewayUploadArg {
  dataDir: string;
}

const arg = serverArg<GatewayUploadArg>();
const db = openDatabase(dataPaths(arg.dataDir).database);
const deps = createDeps({
  db,
  dataDir: arg.dataDir,
  pocketsphinxRoots: [],
  logError: (err) => process.stderr.write(`[bench gateway] ${err instanceof Error ? err.message : String(err)}\n`),
});
deps.settings.update(RESET_SETTINGS);
const token = deps.tokens.create({ name: 'bench', scopes: ['read', 'write'] }, new Date()).token;

// As server/gateway.ts: node's defaults otherwise (requestTimeout 300 s for the whole body).
const server = http.createServer({ requireHostHeader: false }, createApp(deps));
server.listen(0, '127.0.0.1', () => {
  announce({ ready: true, port: (server.address() as AddressInfo).port, token, uploads_dir: dataPaths(arg.dataDir).uploads }, () => {
    deps.shutdown();
    server.close();
    db.close();
  });
});
