/**
 * Requests node:http cannot even parse (an unknown method token, a header
 * block above the size cap, a broken request line) or whose headers did not
 * arrive within headersTimeout (slowloris, an idle connection that never sent
 * a byte) never reach Express; by default node answers them with a bare
 * status line. This handler answers them with the API's error envelope
 * instead, then closes the connection (docs/decisions/003-request-validation.md
 * and 023-slow-clients.md). 431 and 408 are not in API.md's error registry:
 * both are 400 bad_request, with a message saying which.
 *
 * Wire it with `server.on('clientError', handleClientError)`.
 */
import type { Socket } from 'node:net';
import { envelope } from '../errors.ts';
import { responseStarted } from './connection-limits.ts';

/**
 * After the reply, how long the client gets to read it and close its side
 * before the connection is destroyed. Ending only our side would leave a
 * client that keeps sending (or never closes) holding the connection.
 */
const LINGER_MS = 1_000;

export function handleClientError(err: Error & { code?: string }, socket: Socket): void {
  // A reply already under way on this connection (pipelined requests) cannot take a second status line.
  if (!socket.writable || err.code === 'ECONNRESET' || responseStarted(socket)) {
    socket.destroy();
    return;
  }
  const message =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? 'the request headers are larger than the server accepts'
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'the request headers were not received in time'
        : 'the request could not be parsed as HTTP/1.1';
  const body = JSON.stringify(envelope('bad_request', message));
  socket.end(
    'HTTP/1.1 400 Bad Request\r\n' +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
  const linger = setTimeout(() => socket.destroy(), LINGER_MS);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
}
