/**
 * Bench baseline: a bare Express 5 hello-world on 127.0.0.1, an ephemeral port.
 *
 * With {"catchAll": true} (the load benchmark's baseline) it answers every
 * method and path the same way, after parsing a JSON body as the gateway
 * does, so the same request mix can be sent to it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { announce, serverArg } from '../lib.ts';

const arg = serverArg<{ catchAll?: boolean }>();
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
}
const server = http.createServer(app);
server.listen(0, '127.0.0.1', () => {
  announce({ ready: true, port: (server.address() as AddressInfo).port }, () => server.close());
});
