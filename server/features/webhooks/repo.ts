/**
 * Webhooks and their delivery logs in the store (schema: migration-003-webhooks.ts).
 */
import { allRows, transaction, type Database } from '../../kernel/store/database.ts';

export const DELIVERY_MODES = ['at-least-once', 'at-most-once'] as const;
export type DeliveryMode = (typeof DELIVERY_MODES)[number];

export const APPROVAL_STATES = ['pending', 'allowed', 'denied'] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];

export const DELIVERY_REASONS = ['delivery_failed', 'handler_error', 'third_party_rejected', 'denied', 'exhausted'] as const;
export type DeliveryReason = (typeof DELIVERY_REASONS)[number];

/** How many log entries each webhook keeps (API.md, Limits: "most recent 100"). */
const DELIVERY_LOG_LIMIT = 100;

export interface WebhookRecord {
  id: string;
  token_id: string;
  url: string;
  events: string[];
  delivery_mode: DeliveryMode;
  secret: string;
  approval_state: ApprovalState;
  created_at: string;
  updated_at: string;
}

/** One line of a delivery log (docs/decisions/014-webhooks.md, "Delivery log"). */
export interface DeliveryLogEntry {
  delivery_id: string;
  event_id: string;
  event: string;
  /** 1..6 for an attempt; null for an entry that is not one (denied, exhausted). */
  attempt: number | null;
  delivered: boolean;
  /** null when delivered. */
  reason: DeliveryReason | null;
  status_code: number | null;
  detail: string | null;
  occurred_at: string;
  /** When the next attempt is due, or null when none will follow. */
  next_attempt_at: string | null;
}

interface WebhookRow {
  id: string;
  token_id: string;
  url: string;
  events: string;
  delivery_mode: DeliveryMode;
  secret: string;
  approval_state: ApprovalState;
  created_at: string;
  updated_at: string;
}

interface DeliveryRow {
  delivery_id: string;
  event_id: string;
  event: string;
  attempt: number | null;
  delivered: number;
  reason: DeliveryReason | null;
  status_code: number | null;
  detail: string | null;
  occurred_at: string;
  next_attempt_at: string | null;
}

export class WebhooksRepo {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  create(record: WebhookRecord): void {
    this.#db
      .prepare(
        `INSERT INTO webhooks (id, token_id, url, events, delivery_mode, secret, approval_state, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        record.id,
        record.token_id,
        record.url,
        JSON.stringify(record.events),
        record.delivery_mode,
        record.secret,
        record.approval_state,
        record.created_at,
        record.updated_at,
      );
  }

  get(id: string): WebhookRecord | null {
    const row = this.#db.prepare('SELECT * FROM webhooks WHERE id = ?').get(id) as WebhookRow | undefined;
    return row === undefined ? null : toRecord(row);
  }

  /** Newest first. */
  listByOwner(tokenId: string): WebhookRecord[] {
    return allRows<WebhookRow>(this.#db.prepare('SELECT * FROM webhooks WHERE token_id = ? ORDER BY seq DESC'), tokenId).map(toRecord);
  }

  /** Every owner's, newest first. */
  listAll(): WebhookRecord[] {
    return allRows<WebhookRow>(this.#db.prepare('SELECT * FROM webhooks ORDER BY seq DESC')).map(toRecord);
  }

  /**
   * The webhooks an event goes to: subscribed, not pending, and owned by a
   * token that is still switched on. Oldest first, so deliveries are queued
   * in registration order.
   */
  subscribersOf(event: string): WebhookRecord[] {
    const rows = allRows<WebhookRow>(
      this.#db.prepare(
        `SELECT w.* FROM webhooks w JOIN tokens t ON t.id = w.token_id
         WHERE t.enabled = 1 AND w.approval_state <> 'pending'
           AND EXISTS (SELECT 1 FROM json_each(w.events) WHERE json_each.value = ?)
         ORDER BY w.seq`,
      ),
      event,
    );
    return rows.map(toRecord);
  }

  /** Whether the owner of a webhook is still switched on (a switched-off key's webhooks receive nothing). */
  ownerEnabled(webhook: WebhookRecord): boolean {
    const row = this.#db.prepare('SELECT enabled FROM tokens WHERE id = ?').get(webhook.token_id) as { enabled: number } | undefined;
    return row?.enabled === 1;
  }

  setApproval(id: string, state: ApprovalState, now: Date): WebhookRecord | null {
    this.#db.prepare('UPDATE webhooks SET approval_state = ?, updated_at = ? WHERE id = ?').run(state, now.toISOString(), id);
    return this.get(id);
  }

  delete(id: string): boolean {
    return Number(this.#db.prepare('DELETE FROM webhooks WHERE id = ?').run(id).changes) > 0;
  }

  /** Appends a log entry and keeps only the newest DELIVERY_LOG_LIMIT of the webhook. False when the webhook is gone. */
  appendDelivery(webhookId: string, entry: DeliveryLogEntry): boolean {
    return transaction(this.#db, () => {
      if (this.#db.prepare('SELECT 1 FROM webhooks WHERE id = ?').get(webhookId) === undefined) return false;
      this.#db
        .prepare(
          `INSERT INTO webhook_deliveries
             (webhook_id, delivery_id, event_id, event, attempt, delivered, reason, status_code, detail, occurred_at, next_attempt_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          webhookId,
          entry.delivery_id,
          entry.event_id,
          entry.event,
          entry.attempt,
          entry.delivered ? 1 : 0,
          entry.reason,
          entry.status_code,
          entry.detail,
          entry.occurred_at,
          entry.next_attempt_at,
        );
      this.#db
        .prepare(
          `DELETE FROM webhook_deliveries WHERE webhook_id = ? AND seq NOT IN
             (SELECT seq FROM webhook_deliveries WHERE webhook_id = ? ORDER BY seq DESC LIMIT ?)`,
        )
        .run(webhookId, webhookId, DELIVERY_LOG_LIMIT);
      return true;
    });
  }

  /** The log of one webhook, newest first, at most DELIVERY_LOG_LIMIT entries. */
  deliveries(webhookId: string): DeliveryLogEntry[] {
    const rows = allRows<DeliveryRow>(
      this.#db.prepare(
        `SELECT delivery_id, event_id, event, attempt, delivered, reason, status_code, detail, occurred_at, next_attempt_at
         FROM webhook_deliveries WHERE webhook_id = ? ORDER BY seq DESC LIMIT ?`,
      ),
      webhookId,
      DELIVERY_LOG_LIMIT,
    );
    return rows.map((r) => ({ ...r, delivered: r.delivered === 1 }));
  }
}

function toRecord(row: WebhookRow): WebhookRecord {
  return {
    id: row.id,
    token_id: row.token_id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    delivery_mode: row.delivery_mode,
    secret: row.secret,
    approval_state: row.approval_state,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
