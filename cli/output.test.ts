/** The progress renderer, the plain-text printers and the exit code classes of `mas`, without a gateway. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProgressLine, formatBytes, jobLine, uploadLine } from './progress.ts';
import { cell, errorLine, fields, table } from './output.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { main, type Io } from './program.ts';

function sink() {
  let text = '';
  return { out: { write: (s: string) => (text += s) }, text: () => text };
}

test('a disabled progress line writes nothing at all', () => {
  const s = sink();
  const p = new ProgressLine(s.out, false);
  p.update('Uploading x', true);
  p.done('done');
  p.clear();
  assert.equal(s.text(), '');
});

test('an enabled progress line rewrites one line, holds back redraws within 100 ms, and ends with a newline', () => {
  const s = sink();
  let now = 0;
  const p = new ProgressLine(s.out, true, () => now);
  p.update('a');
  p.update('b'); // same instant: held back
  now = 150;
  p.update('c');
  p.update('c', true); // unchanged text: not redrawn
  p.done();
  assert.equal(s.text(), '\r\x1b[2Ka\r\x1b[2Kc\n');
  const t = sink();
  const q = new ProgressLine(t.out, true, () => 0);
  q.update('x');
  q.clear();
  q.update('y');
  q.done('y'); // already on screen: only the newline
  assert.equal(t.text(), '\r\x1b[2Kx\r\x1b[2K\r\x1b[2Ky\n');
});

test('progress texts: bytes, rate, job stage', () => {
  assert.equal(formatBytes(999), '999 B');
  assert.equal(formatBytes(1_536_000), '1.5 MB');
  assert.equal(formatBytes(2_000_000_000), '2.0 GB');
  assert.equal(uploadLine('call.mp3', 1_000_000, 4_000_000, 500), 'Uploading call.mp3  1.0 MB / 4.0 MB  25%  2.0 MB/s');
  assert.equal(uploadLine('call.mp3', 2000, null, 1000), 'Uploading call.mp3  2.0 KB  2.0 KB/s');
  assert.equal(jobLine({ id: 'job_1', state: 'running', stage: 'transcribing', progress: 0.456 }), 'Job job_1  running  transcribing  46%');
});

test('errors on one line with the sub-code under its code; tables and fields in plain text', () => {
  assert.equal(
    errorLine(409, { code: 'import_not_pausable', message: 'an import\ncannot pause' }),
    'mas: HTTP 409 conflict/import_not_pausable: an import cannot pause\n',
  );
  assert.equal(
    errorLine(429, { code: 'import_budget_full', message: 'full' }, '30'),
    'mas: HTTP 429 too_many_requests/import_budget_full: full (retry after 30 s)\n',
  );
  assert.equal(errorLine(404, { code: 'not_found', message: 'no job x' }), 'mas: HTTP 404 not_found: no job x\n');
  assert.equal(
    table(
      [
        { id: 'a', n: null },
        { id: 'bbb', n: ['x', 'y'] },
      ],
      ['id', 'n'],
    ),
    'ID   N\na    -\nbbb  x,y\n',
  );
  assert.equal(table([], ['id']), '(none)\n');
  assert.equal(fields({ state: 'idle', error: null }), 'state: idle\nerror: -\n');
  assert.equal(cell({ a: 1 }), '{"a":1}');
});

test('exit codes by class: a 5xx answer is 3, a 4xx is 1 (a stub server standing in for the gateway)', async () => {
  let status = 500;
  const server = createServer((_req, res) => {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ error: { code: status === 500 ? 'internal' : 'not_found', message: 'stubbed' } }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const run = async () => {
      const err = sink();
      const io: Io = {
        stdout: sink().out,
        stderr: err.out,
        stdin: process.stdin,
        env: { XDG_CONFIG_HOME: '/nonexistent' },
        signal: new AbortController().signal,
        version: '0',
      };
      const code = await main(['--base-url', `http://127.0.0.1:${(server.address() as AddressInfo).port}`, '--token', 't', 'whoami'], io);
      return { code, err: err.text() };
    };
    assert.deepEqual(await run(), { code: 3, err: 'mas: HTTP 500 internal: stubbed\n' });
    status = 404;
    assert.deepEqual(await run(), { code: 1, err: 'mas: HTTP 404 not_found: stubbed\n' });
  } finally {
    await new Promise<void>((r) => server.close(() => r()));
  }
});
