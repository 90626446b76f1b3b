/**
 * Schema version 3: webhooks and their delivery logs
 * (docs/decisions/014-webhooks.md).
 *
 * - A webhook belongs to the token that registered it; deleting the token
 *   deletes its webhooks (a revoked key must not keep receiving events), and
 *   deleting a webhook deletes its log.
 * - The signing secret is stored as given, since every delivery must sign
 *   with it; the database file is readable by the owner only.
 * - The log keeps the newest 100 entries per webhook (features/webhooks/repo.ts trims
 *   it on every insert).
 *
 * Pairing requests are not stored: they live in memory (features/pairing/service.ts).
 */
import type { Migration } from './migration.ts';

export const MIGRATION_003_WEBHOOKS: Migration = {
  version: 3,
  name: 'webhooks and delivery logs',
  sql: `
    CREATE TABLE webhooks (
      seq            INTEGER PRIMARY KEY,   -- creation order
      id             TEXT NOT NULL UNIQUE,
      token_id       TEXT NOT NULL REFERENCES tokens (id) ON DELETE CASCADE,
      url            TEXT NOT NULL,
      events         TEXT NOT NULL,         -- JSON array of event names
      delivery_mode  TEXT NOT NULL CHECK (delivery_mode IN ('at-least-once', 'at-most-once')),
      secret         TEXT NOT NULL,         -- the HMAC key; shown once, at creation
      approval_state TEXT NOT NULL DEFAULT 'pending' CHECK (approval_state IN ('pending', 'allowed', 'denied')),
      created_at     TEXT NOT NULL,
      updated_at     TEXT NOT NULL
    ) STRICT;
    CREATE INDEX webhooks_by_token ON webhooks (token_id);

    CREATE TABLE webhook_deliveries (
      seq             INTEGER PRIMARY KEY,  -- log order; newest has the highest
      webhook_id      TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
      delivery_id     TEXT NOT NULL,
      event_id        TEXT NOT NULL,
      event           TEXT NOT NULL,
      attempt         INTEGER,              -- 1..6; NULL for entries that are not an attempt (denied, exhausted)
      delivered       INTEGER NOT NULL,
      reason          TEXT CHECK (reason IS NULL OR reason IN
                        ('delivery_failed', 'handler_error', 'third_party_rejected', 'denied', 'exhausted')),
      status_code     INTEGER,
      detail          TEXT,
      occurred_at     TEXT NOT NULL,
      next_attempt_at TEXT
    ) STRICT;
    CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, seq);
  `,
};
