/**
 * Bench baseline: a bare Express 5 app on 127.0.0.1, an ephemeral port.
 *
 * GET / answers {"hello":"world"}; with {"json": …} GET /v1/whoami answers
 * that object instead (the core benchmark passes the gateway's own whoami
 * answer, so both send the same bytes), serialized per request with res.json.
 *
 * With {"catchAll": true} (the load benchmark's baseline) it answers every
 * method and path the same way, after parsing a JSON body as the gateway
 * does, so the same request mix can be sent to it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { announce, serverArg } from '../lib.ts';

const arg = serverArg<{ catchAll?: boolean; json?: unknown }>();
const app = express();
if (arg.catchAll === true) {
  app.use(express.json());
  app.use((_req, res) => {
    res.json({ hello: 'world' });
  });
} else {
  app.get('/', (_req, res) => {
    res.json({ hello: 'world' });
  });
  if (arg.json !== undefined) {
    const json = arg.json;
    app.get('/v1/whoami', (_req, res) => {
      res.json(json);
    });
  }
}
const server = http.createServer(app);
server.listen(0, '127.0.0.1', () => {
  announce({ ready: true, port: (server.address() as AddressInfo).port }, () => server.close());
});
