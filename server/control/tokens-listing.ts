/**
 * GET /control/tokens: every Automation API token, for the settings page's
 * token list. CONTROL.md has no listing (it only creates, switches and
 * revokes); this is the reference's addition, recorded in
 * docs/decisions/020-settings-page.md.
 *
 *   GET /control/tokens → 200 {"tokens": [{id, name, scopes, origin, kind, enabled, created_at}]}
 *
 * Oldest first. Never a hash and never a raw token: the raw token exists only
 * in the reply that created it (POST /control/tokens, or the device's first
 * poll after a pairing was approved).
 */
import type { TokenRecord, TokensRepo } from '../kernel/store/tokens-repo.ts';

/** A token as the settings list it: exactly the record's public fields, in this order. */
function controlTokenView(record: TokenRecord) {
  return {
    id: record.id,
    name: record.name,
    scopes: record.scopes,
    origin: record.origin,
    kind: record.kind,
    enabled: record.enabled,
    created_at: record.created_at,
  };
}

/** The body of GET /control/tokens. */
export function listTokens(tokens: Pick<TokensRepo, 'list'>): { tokens: ReturnType<typeof controlTokenView>[] } {
  return { tokens: tokens.list().map(controlTokenView) };
}
