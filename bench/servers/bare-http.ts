/**
 * Bench baseline: a bare node:http server on 127.0.0.1, an ephemeral port,
 * answering every request with {"hello":"world"}, or with the object given as
 * {"json": …} (the core benchmark passes the gateway's own whoami answer),
 * serialized per request as the gateway does.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { announce, serverArg } from '../lib.ts';

const arg = serverArg<{ json?: unknown }>();
const json = arg.json ?? { hello: 'world' };
const server = http.createServer((_req, res) => {
  const body = JSON.stringify(json);
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  announce({ ready: true, port: (server.address() as AddressInfo).port }, () => server.close());
});
