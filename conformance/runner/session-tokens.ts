/**
 * The tokens a run holds before any check starts: the --token and the
 * entries of a tokens file (harness/token-pool.ts), each described by GET
 * /v1/whoami (scopes, origin, kind) unless the file says so itself.
 */
import type { TokenKind, TokenOrigin } from '../harness/control.ts';
import type { Environment } from '../harness/context-types.ts';
import type { HttpClient } from '../harness/http.ts';
import type { Secrets } from '../harness/secrets.ts';
import { TokensFileError, readTokensFile } from '../harness/token-pool.ts';
import type { PoolToken } from '../harness/token-pool.ts';
import type { ProgressEvent } from './session-types.ts';
import { SetupError } from './setup-error.ts';

/** The --token as whoami tells it: its scopes, or null when whoami would not say (any answer but 401). */
export async function whoamiOfToken(
  api: HttpClient,
  token: string,
  progress: (e: ProgressEvent) => void,
): Promise<NonNullable<Environment['userToken']>> {
  const res = await api.get('/v1/whoami', { token, label: 'setup: whoami of --token' });
  if (res.status === 401 || res.status === 0) {
    throw new SetupError(
      `--token cannot be used: GET /v1/whoami answered ${res.describe(160)} (a Control API reset erases every token, the startup one too)`,
    );
  }
  const scopes = (res.body as { scopes?: unknown } | undefined)?.scopes;
  const userToken = { token, scopes: res.status === 200 && Array.isArray(scopes) ? scopes.map(String) : null };
  progress({
    type: 'setup',
    message:
      userToken.scopes === null
        ? `--token: GET /v1/whoami answered ${res.describe(120)}; its scopes are unknown`
        : `--token holds ${userToken.scopes.join(', ') || 'no scope'}`,
  });
  return userToken;
}

/** One token of the pool, described by what the tokens file gives and whoami for the rest. */
async function describeToken(
  api: HttpClient,
  token: string,
  source: string,
  given: { scopes?: string[]; origin?: TokenOrigin; kind?: TokenKind; note?: string },
): Promise<PoolToken> {
  const res = await api.get('/v1/whoami', { token, label: `setup: whoami of ${source}` });
  if (res.status === 401 || res.status === 0)
    throw new SetupError(`${source} cannot be used: GET /v1/whoami answered ${res.describe(160)}`);
  const who = (res.status === 200 ? res.body : {}) as { token_id?: unknown; scopes?: unknown; origin?: unknown; kind?: unknown };
  const scopes = given.scopes ?? (Array.isArray(who.scopes) ? who.scopes.map(String) : null);
  if (scopes === null)
    throw new SetupError(
      `${source}: GET /v1/whoami answered ${res.describe(120)}, so its scopes are unknown; give them in the tokens file ("scopes")`,
    );
  const origin =
    given.origin ??
    (typeof who.origin === 'string' && ['loopback', 'paired', 'lan'].includes(who.origin) ? (who.origin as TokenOrigin) : 'loopback');
  const kind =
    given.kind ??
    (typeof who.kind === 'string' && ['standard', 'first_party', 'assistant'].includes(who.kind) ? (who.kind as TokenKind) : 'standard');
  return {
    token,
    tokenId: typeof who.token_id === 'string' ? who.token_id : '',
    scopes,
    origin,
    kind,
    source,
    ...(given.note === undefined ? {} : { note: given.note }),
  };
}

/** The --token and the tokens file's entries, in that order, for the run's token pool. */
export async function poolTokens(
  api: HttpClient,
  userToken: Environment['userToken'],
  tokensFile: string | undefined,
  secrets: Secrets,
  progress: (e: ProgressEvent) => void,
): Promise<PoolToken[]> {
  const pooled: PoolToken[] = [];
  if (userToken !== null && userToken.scopes !== null)
    pooled.push(await describeToken(api, userToken.token, '--token', { scopes: userToken.scopes }));
  // A --token whose scopes whoami did not tell is used as before: for any check content with "at least" some scopes.
  else if (userToken !== null)
    pooled.push({
      token: userToken.token,
      tokenId: '',
      scopes: [],
      scopesKnown: false,
      origin: 'loopback',
      kind: 'standard',
      source: '--token',
    });
  if (tokensFile === undefined) return pooled;
  let entries;
  try {
    entries = readTokensFile(tokensFile);
  } catch (err) {
    if (err instanceof TokensFileError) throw new SetupError(err.message);
    throw err;
  }
  for (const e of entries) {
    secrets.add(e.token, `$MAS_TOKEN_${e.index}`);
    pooled.push(await describeToken(api, e.token, `tokens file entry ${e.index}`, e));
  }
  progress({
    type: 'setup',
    message: `--tokens: ${pooled
      .filter((t) => t.source !== '--token')
      .map((t) => `#${t.source.replace(/\D+/g, '')} ${t.scopes.join('+') || 'no scope'} · ${t.origin} · ${t.kind}`)
      .join('; ')}`,
  });
  return pooled;
}
