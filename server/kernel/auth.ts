/**
 * Who is calling, and may they make this call.
 *
 * The gates run in one fixed order, documented in
 * docs/decisions/001-auth-gate-order.md:
 *
 *   1. api_disabled 403       the Automation API switch is off
 *   2. license_required 402   no Pro license ("unverifiable" fails open and is counted)
 *   3. consumer_disabled 403  the presented token is known but switched off
 *   4. unauthorized 401       no token, a malformed header, or an unknown token
 *   5. insufficient_scope 403 the token's scopes do not cover the operation
 *
 * GET /health skips all of them; the pairing routes (scope "none") pass gates
 * 1 and 2 only. Remote callers (paired or LAN tokens, or any request that
 * arrived on the LAN listener) are marked so later rules (not_prearmed) can
 * apply to them.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from './errors.ts';
import { satisfies, type RequiredScope } from './scopes.ts';
import type { HealthCounters } from './health-counters.ts';
import type { Settings } from './store/settings-repo.ts';
import type { TokenRecord, TokensRepo } from './store/tokens-repo.ts';

export interface Caller {
  /** Frozen, and shared by every request of the same token (tokens-repo.ts caches it). */
  token: Readonly<TokenRecord>;
  /** A non-loopback caller: a paired or LAN token, or a request from the LAN listener. */
  remote: boolean;
}

export interface AuthDeps {
  settings: () => Settings;
  tokens: TokensRepo;
  counters: HealthCounters;
}

const lanSockets = new WeakSet<Socket>();

/** Called by the LAN listener for each connection it accepts. */
export function markLanSocket(socket: Socket): void {
  lanSockets.add(socket);
}

/** The raw token of an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  const match = /^Bearer[ ]+([\x21-\x7e]{1,512})[ ]*$/i.exec(header);
  return match?.[1] ?? null;
}

export function authorize(req: IncomingMessage, op: { scope: RequiredScope; ungated?: boolean }, deps: AuthDeps): Caller | null {
  if (op.ungated === true) return null;
  const settings = deps.settings();
  if (!settings.automation_api_enabled) {
    throw new ApiError('api_disabled', 'the Automation API is switched off in the application settings');
  }
  if (settings.license === 'none') {
    throw new ApiError('license_required', 'the Automation API needs a Pro license on this installation');
  }
  if (settings.license === 'unverifiable') deps.counters.failOpenTotal += 1;
  if (op.scope === 'none') return null;

  const raw = bearerToken(req.headers.authorization);
  const token = raw === null ? null : deps.tokens.authenticate(raw);
  if (token !== null && !token.enabled) {
    throw new ApiError('consumer_disabled', 'this token has been switched off in the application settings');
  }
  if (token === null) {
    throw new ApiError('unauthorized', raw === null ? 'send Authorization: Bearer <token>' : 'the bearer token is not recognized', {
      'WWW-Authenticate': 'Bearer realm="meeting-automation"',
    });
  }
  if (!satisfies(token.scopes, op.scope)) {
    throw new ApiError(
      'insufficient_scope',
      `this call needs the ${op.scope} scope; the token has ${token.scopes.length > 0 ? token.scopes.join(', ') : 'no scope'}`,
    );
  }
  return { token, remote: token.origin !== 'loopback' || lanSockets.has(req.socket) };
}
