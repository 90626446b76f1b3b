/**
 * The gateway for the webhook benchmark: openDatabase + createDeps +
 * createApp on node:http (127.0.0.1, an ephemeral port) with the real
 * delivery parts (dispatcher, HTTP transport, signatures, system resolver,
 * global scheduler), and the Control API on a second loopback listener for
 * approvals. The 'Local webhook targets' allowlist is stored before the
 * dependencies are built, as it is read at startup. deps.start() runs, so
 * webhook delivery listens to the bus.
 *
 * Commands (ChildServer.call):
 *   publish {n, event}         publishes n events on deps.bus in one burst
 *   plain {n, concurrency, url, bytes}
 *                              the baseline: n unsigned POSTs of `bytes`
 *                              bytes from a minimal loop, `concurrency` at
 *                              once, one connection each (as the transport)
 *   memory {gc}                process.memoryUsage(), after a full GC when asked
 *   counters                   events_dropped, deliveries_failed, held
 *
 * Start it with --expose-gc for `memory {gc: true}`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../server/app.ts';
import { createControlApp } from '../../server/control/app.ts';
import { createDeps, dataPaths } from '../../server/deps.ts';
import type { EventName } from '../../server/kernel/events.ts';
import { openDatabase } from '../../server/kernel/store/database.ts';
import { RESET_SETTINGS, SettingsRepo } from '../../server/kernel/store/settings-repo.ts';
import { announce, serveCommands, serverArg } from '../lib.ts';

export interface WebhookGatewayArg {
  dataDir: string;
  /** host:port entries of the receivers. */
  allowlist: string[];
  controlSecret: string;
  /** Replaces the dispatcher's queue bound (tiny runs); default the real 10,000. */
  queueLimit?: number;
}

const arg = serverArg<WebhookGatewayArg>();
const db = openDatabase(dataPaths(arg.dataDir).database);
new SettingsRepo(db).update({ ...RESET_SETTINGS, local_webhook_targets: arg.allowlist });
const deps = createDeps({
  db,
  dataDir: arg.dataDir,
  pocketsphinxRoots: [],
  ...(arg.queueLimit !== undefined ? { webhooks: { queueLimit: arg.queueLimit } } : {}),
  logError: (err) => process.stderr.write(`[bench webhook gateway] ${err instanceof Error ? err.message : String(err)}\n`),
});
deps.start();
const token = deps.tokens.create({ name: 'bench', scopes: ['read'] }, new Date()).token;

serveCommands({
  publish: (msg) => {
    const n = Number(msg['n']);
    const event = String(msg['event']) as EventName;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) deps.bus.publish(event, { kind: 'job', id: `job_bench_${i}` });
    return { publish_ms: performance.now() - t0, held: deps.webhooks.dispatcher.held };
  },
  plain: async (msg) => {
    const n = Number(msg['n']);
    const url = new URL(String(msg['url']));
    const body = 'x'.repeat(Number(msg['bytes']));
    let next = 0;
    let failed = 0;
    const one = () =>
      new Promise<void>((resolve) => {
        const req = http.request(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: 'POST',
            agent: false,
            headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), Connection: 'close' },
          },
          (res) => {
            if (res.statusCode !== 200) failed += 1;
            res.resume();
            res.on('end', resolve);
            res.on('error', resolve);
          },
        );
        req.on('error', () => {
          failed += 1;
          resolve();
        });
        req.end(body);
      });
    const worker = async () => {
      while (next < n) {
        next += 1;
        await one();
      }
    };
    await Promise.all(Array.from({ length: Number(msg['concurrency']) }, worker));
    return { failed };
  },
  memory: (msg) => {
    if (msg['gc'] === true) {
      const gc = (globalThis as { gc?: () => void }).gc;
      if (gc === undefined) throw new Error('start the process with --expose-gc');
      gc();
      gc();
    }
    return process.memoryUsage();
  },
  counters: () => ({
    events_dropped: deps.counters.eventsDropped,
    deliveries_failed: deps.counters.deliveriesFailed,
    held: deps.webhooks.dispatcher.held,
  }),
});

const api = http.createServer({ requireHostHeader: false }, createApp(deps));
const control = http.createServer(createControlApp({ secret: arg.controlSecret, deps: () => deps, restart: () => undefined }));
api.listen(0, '127.0.0.1', () => {
  control.listen(0, '127.0.0.1', () => {
    announce(
      { ready: true, port: (api.address() as AddressInfo).port, control_port: (control.address() as AddressInfo).port, token },
      () => {
        deps.shutdown();
        api.close();
        control.close();
        db.close();
      },
    );
  });
});
