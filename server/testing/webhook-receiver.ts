/**
 * A real webhook receiver for tests: a node:http server on 127.0.0.1 with an
 * ephemeral port that records every request (raw body bytes, headers, arrival
 * time) and answers what the test tells it to. Imported by *.test.ts only.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  /** Date.now() when the body had arrived. */
  at: number;
}

/** What to do with a request: a status to answer, or 'hang' (never answer), or 'reset' (drop the connection). */
type Answer = number | 'hang' | 'reset' | ((res: ServerResponse) => void);

export interface Receiver {
  url: string;
  port: number;
  /** host:port, as the Local webhook targets allowlist wants it. */
  target: string;
  received: Received[];
  /** The answer for the next requests (default 200). */
  answer: Answer;
  /** Resolves when `count` requests have arrived in all. */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const waiters: { count: number; resolve: () => void }[] = [];
  const receiver: Receiver = {
    url: '',
    port: 0,
    target: '',
    received: [],
    answer: 200,
    waitFor(count, timeoutMs = 10_000) {
      if (receiver.received.length >= count) return Promise.resolve(receiver.received);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`receiver: ${receiver.received.length} of ${count} requests after ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(receiver.received);
          },
        });
      });
    },
    close: () => closeServer(server),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      receiver.received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        rawBody: Buffer.concat(chunks),
        at: Date.now(),
      });
      for (const w of [...waiters]) {
        if (receiver.received.length >= w.count) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
      const answer = receiver.answer;
      if (answer === 'hang') return;
      if (answer === 'reset') {
        req.socket.destroy();
        return;
      }
      if (typeof answer === 'function') {
        answer(res);
        return;
      }
      res.statusCode = answer;
      res.end(answer >= 200 && answer < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hook`;
  receiver.target = `127.0.0.1:${receiver.port}`;
  return receiver;
}

/** A port on 127.0.0.1 that nothing listens on (bound, then closed). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await closeServer(server);
  return port;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
