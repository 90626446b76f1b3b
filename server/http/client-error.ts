/**
 * Requests node:http cannot even parse (an unknown method token, a header
 * block above the size cap, a broken request line) never reach Express; by
 * default node answers them with a bare status line. This handler answers
 * them with the API's error envelope instead, then closes the connection.
 *
 * Wire it with `server.on('clientError', handleClientError)`.
 */
import type { Socket } from 'node:net';
import { envelope } from '../errors.ts';

export function handleClientError(err: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable || (err.code === 'ECONNRESET')) {
    socket.destroy();
    return;
  }
  const message =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? 'the request headers are larger than the server accepts'
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'the request was not received in time'
        : 'the request could not be parsed as HTTP/1.1';
  const body = JSON.stringify(envelope('bad_request', message));
  socket.end(
    'HTTP/1.1 400 Bad Request\r\n' +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}
