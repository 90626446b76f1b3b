/**
 * Bench baseline for the import upload: a bare node:http server on
 * 127.0.0.1 that streams any POST body to a file (node:stream pipeline into
 * fs.createWriteStream, as the gateway's receiveUpload does, without the
 * budget, the counting transform or Express), answers 200 with the byte
 * count once the file is complete, then deletes it.
 */
import { createWriteStream, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { announce, serverArg } from '../lib.ts';

export interface BareUploadArg {
  /** Where uploads are written (one file at a time; deleted after each answer). */
  dir: string;
}

const arg = serverArg<BareUploadArg>();
let n = 0;

const server = http.createServer((req, res) => {
  const file = join(arg.dir, `bare-upload-${++n}.bin`);
  let bytes = 0;
  req.on('data', (chunk: Buffer) => (bytes += chunk.length));
  pipeline(req, createWriteStream(file, { mode: 0o600 })).then(
    () => {
      const body = JSON.stringify({ bytes });
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
      rmSync(file, { force: true });
    },
    () => {
      rmSync(file, { force: true });
      res.destroy();
    },
  );
});
server.listen(0, '127.0.0.1', () => {
  announce({ ready: true, port: (server.address() as AddressInfo).port }, () => server.close());
});
