/**
 * LAN mode (API.md, "What the service does" 3; docs/decisions/016-lan-mode.md):
 * with settings.lan_enabled on at startup, the gateway also serves the same
 * Automation API on 0.0.0.0:8421 over HTTPS, with the self-signed certificate
 * of self-signed-cert.ts. The loopback listener stays plain HTTP.
 *
 * Every connection accepted here is marked as a LAN socket (auth.ts,
 * markLanSocket), so every request on it is a remote caller whatever its
 * token's origin, and the remote rules (not_prearmed) apply.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { markLanSocket } from '../kernel/auth.ts';
import { handleClientError } from '../kernel/http/client-error.ts';
import { applyConnectionLimits, CONNECTION_DEFAULTS, serverOptions, type ConnectionLimits } from '../kernel/http/connection-limits.ts';
import type { TlsMaterial } from './self-signed-cert.ts';

export const LAN_DEFAULTS = { host: '0.0.0.0', port: 8421 } as const;

/** The same slow-client limits as the loopback listener (docs/decisions/023-slow-clients.md). */
export function createLanServer(
  tls: TlsMaterial,
  handle: (req: IncomingMessage, res: ServerResponse) => void,
  limits: ConnectionLimits = CONNECTION_DEFAULTS,
): Server {
  const server = createServer(
    {
      key: tls.key,
      cert: tls.cert,
      minVersion: 'TLSv1.2',
      ...serverOptions(limits),
      // Before the HTTP parser exists (it starts once TLS is up), only this bounds a client that connects and stalls.
      handshakeTimeout: limits.headersTimeoutMs,
    },
    handle,
  );
  applyConnectionLimits(server, limits);
  // The TLS socket is the one a request's req.socket points at.
  server.on('secureConnection', (socket: TLSSocket) => markLanSocket(socket));
  server.on('clientError', handleClientError);
  // A failed handshake (a plain-HTTP client, a client refusing the certificate) only closes that connection.
  server.on('tlsClientError', (_err, socket) => socket.destroy());
  return server;
}
