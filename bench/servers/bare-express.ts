/**
 * Bench baseline: a bare Express 5 hello-world on 127.0.0.1, an ephemeral port.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { announce } from '../lib.ts';

const app = express();
app.get('/', (_req, res) => {
  res.json({ hello: 'world' });
});
const server = http.createServer(app);
server.listen(0, '127.0.0.1', () => {
  announce({ ready: true, port: (server.address() as AddressInfo).port }, () => server.close());
});
