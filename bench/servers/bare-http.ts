/**
 * Bench baseline: a bare node:http hello-world on 127.0.0.1, an ephemeral port.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { announce } from '../lib.ts';

const body = JSON.stringify({ hello: 'world' });
const server = http.createServer((_req, res) => {
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  announce({ ready: true, port: (server.address() as AddressInfo).port }, () => server.close());
});
