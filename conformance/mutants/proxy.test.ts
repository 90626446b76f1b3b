import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { localServer } from '../harness/testing.ts';
import type { LocalServer } from '../harness/testing.ts';
import { MUTANTS, mutantByName } from './catalog.ts';
import { startProxy } from './proxy.ts';

let target: LocalServer;
before(async () => {
  target = await localServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('event: a\ndata: 1\n\n');
        setTimeout(() => res.end(), 50);
        return;
      }
      if (req.url === '/health') {
        res.writeHead(200, { 'content-type': 'application/json', 'x-extra': 'kept' });
        res.end('{"status":"ok","version":"1"}');
        return;
      }
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          method: req.method,
          url: req.url,
          auth: req.headers['authorization'] ?? null,
          body: Buffer.concat(chunks).toString(),
        }),
      );
    });
  });
});
after(() => target.close());

test('the identity mutant is transparent: method, path, query, headers, body, status, and streams', async () => {
  const proxy = await startProxy(target.url, mutantByName('identity')!);
  try {
    const res = await fetch(`${proxy.url}/v1/x?a=1&b=%20`, {
      method: 'PUT',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: '{"k":"v"}',
    });
    assert.equal(res.status, 201);
    assert.deepEqual(await res.json(), { method: 'PUT', url: '/v1/x?a=1&b=%20', auth: 'Bearer t', body: '{"k":"v"}' });
    const health = await fetch(`${proxy.url}/health`);
    assert.equal(health.headers.get('x-extra'), 'kept');
    const stream = await fetch(`${proxy.url}/stream`, { headers: { accept: 'text/event-stream' } });
    assert.equal(stream.headers.get('content-type'), 'text/event-stream');
    assert.equal(await stream.text(), 'event: a\ndata: 1\n\n');
  } finally {
    await proxy.close();
  }
});

test('a mutant rewrites answers; every mutant names checks and has a unique name', async () => {
  const proxy = await startProxy(target.url, mutantByName('health-version-missing')!);
  try {
    assert.deepEqual(await (await fetch(`${proxy.url}/health`)).json(), { status: 'ok' });
  } finally {
    await proxy.close();
  }
  assert.equal(new Set(MUTANTS.map((m) => m.name)).size, MUTANTS.length);
  for (const m of MUTANTS) if (m.name !== 'identity') assert.ok(Object.keys(m.expect).length > 0, m.name);
});

test('every check a mutant names exists', async () => {
  const { loadChecks } = await import('../runner/registry.ts');
  const ids = new Set((await loadChecks()).checks.map((c) => c.id));
  for (const m of MUTANTS) for (const id of Object.keys(m.expect)) assert.ok(ids.has(id), `${m.name} names ${id}`);
});
