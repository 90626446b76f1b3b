/**
 * HttpClient's skipEventStream: a probe of the gates takes a granted event
 * stream's status and headers without reading it (the stream here never
 * ends, so a read would only stop at readBodyMs or the timeout), and still
 * reads a refusal's JSON body in full.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { HttpClient } from './http.ts';
import { Secrets } from './secrets.ts';

const server = createServer((req, res) => {
  if (req.url === '/stream') {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(': open\n\n');
    return; // never ends
  }
  res.writeHead(403, { 'content-type': 'application/json' }).end('{"error":{"code":"insufficient_scope","message":"no"}}');
});
let client: HttpClient;

before(async () => {
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as AddressInfo).port;
  client = new HttpClient({
    baseUrl: `http://127.0.0.1:${port}`,
    channel: 'api',
    secrets: new Secrets(),
    sink: () => (x) => ({ seq: 0, ...x }),
  });
});
after(() => {
  server.closeAllConnections();
  server.close();
});

test('a granted event stream is not read; the exchange says so', async () => {
  // No readBodyMs and an hour's timeout: only skipping the body lets this return.
  const res = await client.get('/stream', { skipEventStream: true, timeoutMs: 3_600_000 });
  assert.equal(res.status, 200);
  assert.equal(res.mediaType, 'text/event-stream');
  assert.equal(res.text, '');
  assert.ok(
    res.exchange.notes?.some((n) => n.includes('did not read the event stream')),
    JSON.stringify(res.exchange.notes),
  );
});

test('a refusal is read in full', async () => {
  const res = await client.get('/refused', { skipEventStream: true });
  assert.equal(res.status, 403);
  assert.equal(res.errorCode, 'insufficient_scope');
});
