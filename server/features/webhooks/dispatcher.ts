/**
 * Webhook delivery: from the event bus to signed POSTs, with retries and the
 * delivery log (API.md, Webhooks → Delivery; docs/decisions/014-webhooks.md).
 *
 * For each event on the bus, every webhook subscribed to it (any owner):
 * - pending: nothing happens, nothing is logged;
 * - denied: no attempt; one log entry with reason denied;
 * - allowed: a delivery is queued. It keeps one delivery_id, one event_id and
 *   one body across its attempts; each attempt gets a fresh timestamp and
 *   signature, re-checks the destination (destination.ts) and connects only
 *   to the addresses that check approved (transport.ts).
 *
 * at-least-once: up to 6 attempts, waiting 1, 2, 4, 8, 16 s after each
 * failed one; when all 6 fail an `exhausted` entry is logged and
 * counters.deliveriesFailed goes up by one. at-most-once and webhook.test:
 * one attempt, never retried.
 *
 * Reasons: a 2xx is delivered; 5xx → handler_error; any other status (3xx,
 * since redirects are not followed, 4xx, 1xx) → third_party_rejected; no
 * HTTP answer (refused, reset, timeout, TLS, DNS, a destination that no
 * longer passes the check) → delivery_failed.
 *
 * The queue is in memory and bounded: queued, running and retry-waiting
 * deliveries together at most `queueLimit`. A delivery that does not fit is
 * dropped before any attempt and counted in counters.eventsDropped. stop()
 * (restart, quit) cancels every timer and in-flight attempt: undelivered
 * events are dropped, never replayed.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../adapters/clock.ts';
import type { DomainEvent } from '../../kernel/events.ts';
import type { HealthCounters } from '../../kernel/health-counters.ts';
import type { DeliveryLogEntry, DeliveryReason, WebhookRecord, WebhooksRepo } from './repo.ts';
import { DestinationRefused, type CheckedDestination } from './destination.ts';
import { isSubscribable } from './event-catalog.ts';
import type { Scheduler } from './scheduler.ts';
import { sign, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './signature.ts';
import type { AttemptResult, Transport } from './transport.ts';

/** Waits after failed attempts 1..5 (API.md, Limits). */
export const RETRY_DELAYS_MS = [1000, 2000, 4000, 8000, 16000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

export const DISPATCH_DEFAULTS = {
  /** Deliveries held in memory at once (queued, running, waiting to retry). */
  queueLimit: 10_000,
  /** Attempts on the wire at once. */
  concurrency: 8,
  /** One attempt: connect, send and receive the status line. */
  attemptTimeoutMs: 10_000,
} as const;

export interface DispatcherOptions {
  repo: WebhooksRepo;
  counters: HealthCounters;
  clock: Clock;
  scheduler: Scheduler;
  transport: Transport;
  /** The destination check of destination.ts, with the startup allowlist and the resolver bound in. */
  check: (url: string) => Promise<CheckedDestination>;
  /** settings.webhooks_enabled, read live. */
  enabled: () => boolean;
  queueLimit?: number;
  concurrency?: number;
  attemptTimeoutMs?: number;
  logError?: (err: unknown) => void;
}

/** The body of a delivery: the bus event plus this delivery's id (API.md, Events). */
interface Envelope {
  schema_version: number;
  event_id: string;
  event: string;
  occurred_at: string;
  resource: { kind: string; id: string };
  delivery_id: string;
  operation_id?: string;
}

interface Delivery {
  id: string;
  webhookId: string;
  eventId: string;
  event: string;
  /** The serialised envelope: the same bytes on every attempt. */
  body: string;
  /** The number of the next attempt, from 1. */
  attempt: number;
  maxAttempts: number;
}

export class WebhookDispatcher {
  readonly #o: DispatcherOptions;
  readonly #queueLimit: number;
  readonly #concurrency: number;
  readonly #timeoutMs: number;
  #ready: Delivery[] = [];
  readonly #running = new Map<Delivery, AbortController>();
  readonly #waiting = new Map<Delivery, unknown>();
  #stopped = false;

  constructor(opts: DispatcherOptions) {
    this.#o = opts;
    this.#queueLimit = opts.queueLimit ?? DISPATCH_DEFAULTS.queueLimit;
    this.#concurrency = opts.concurrency ?? DISPATCH_DEFAULTS.concurrency;
    this.#timeoutMs = opts.attemptTimeoutMs ?? DISPATCH_DEFAULTS.attemptTimeoutMs;
  }

  /** Deliveries held in memory: queued, on the wire, or waiting to retry. */
  get held(): number {
    return this.#ready.length + this.#running.size + this.#waiting.size;
  }

  /** The bus listener. Synchronous and quick: it only reads the subscribers and queues. */
  onEvent(event: DomainEvent): void {
    if (this.#stopped || !this.#o.enabled() || !isSubscribable(event.event)) return;
    for (const hook of this.#o.repo.subscribersOf(event.event)) {
      if (hook.approval_state === 'denied') {
        this.#logDenied(hook, `dlv_${randomUUID()}`, event.event_id, event.event);
        continue;
      }
      this.#enqueue(hook, event, hook.delivery_mode === 'at-least-once' ? MAX_ATTEMPTS : 1);
    }
  }

  /**
   * POST /v1/webhooks/{id}/test: one webhook.test delivery to this webhook,
   * one attempt, whatever it subscribes to. Egress consent applies: pending
   * sends and logs nothing, denied logs denied. Returns the ids, or null for
   * delivery ids when nothing was queued.
   */
  sendTest(hook: WebhookRecord): { event_id: string; delivery_id: string | null } {
    const event: DomainEvent = {
      schema_version: 1,
      event_id: `evt_${randomUUID()}`,
      event: 'webhook.test',
      occurred_at: this.#o.clock.now().toISOString(),
      resource: { kind: 'webhook', id: hook.id },
    };
    if (this.#stopped || hook.approval_state === 'pending') return { event_id: event.event_id, delivery_id: null };
    if (hook.approval_state === 'denied') {
      const id = `dlv_${randomUUID()}`;
      this.#logDenied(hook, id, event.event_id, event.event);
      return { event_id: event.event_id, delivery_id: id };
    }
    return { event_id: event.event_id, delivery_id: this.#enqueue(hook, event, 1) };
  }

  /** Restart or quit: every timer and in-flight attempt is cancelled; nothing is replayed later. */
  stop(): void {
    this.#stopped = true;
    for (const handle of this.#waiting.values()) this.#o.scheduler.clearTimeout(handle);
    this.#waiting.clear();
    for (const abort of this.#running.values()) abort.abort();
    this.#running.clear();
    this.#ready = [];
  }

  #enqueue(hook: WebhookRecord, event: DomainEvent, maxAttempts: number): string | null {
    if (this.held >= this.#queueLimit) {
      this.#o.counters.eventsDropped += 1;
      return null;
    }
    const id = `dlv_${randomUUID()}`;
    const envelope: Envelope = {
      schema_version: event.schema_version,
      event_id: event.event_id,
      event: event.event,
      occurred_at: event.occurred_at,
      resource: { kind: event.resource.kind, id: event.resource.id },
      delivery_id: id,
      ...(event.operation_id !== undefined ? { operation_id: event.operation_id } : {}),
    };
    this.#ready.push({
      id,
      webhookId: hook.id,
      eventId: event.event_id,
      event: event.event,
      body: JSON.stringify(envelope),
      attempt: 1,
      maxAttempts,
    });
    this.#pump();
    return id;
  }

  #pump(): void {
    while (!this.#stopped && this.#running.size < this.#concurrency) {
      const next = this.#ready.shift();
      if (next === undefined) return;
      const abort = new AbortController();
      this.#running.set(next, abort);
      this.#attempt(next, abort.signal)
        .catch((err: unknown) => this.#o.logError?.(err))
        .finally(() => {
          this.#running.delete(next);
          this.#pump();
        });
    }
  }

  async #attempt(d: Delivery, signal: AbortSignal): Promise<void> {
    const { repo, clock } = this.#o;
    const hook = repo.get(d.webhookId);
    // Deleted, its owner switched off, or delivery switched off: dropped without a trace.
    if (hook === null || !repo.ownerEnabled(hook) || !this.#o.enabled()) return;
    if (hook.approval_state === 'denied') {
      this.#logDenied(hook, d.id, d.eventId, d.event);
      return;
    }
    if (hook.approval_state !== 'allowed') return;

    const sentAt = clock.now();
    let result: AttemptResult;
    try {
      const destination = await this.#o.check(hook.url);
      if (signal.aborted) return;
      const timestamp = String(Math.floor(clock.now().getTime() / 1000));
      result = await this.#o.transport({
        destination,
        body: d.body,
        headers: {
          'Content-Type': 'application/json',
          [SIGNATURE_HEADER]: sign(hook.secret, timestamp, d.body),
          [TIMESTAMP_HEADER]: timestamp,
        },
        timeoutMs: this.#timeoutMs,
        signal,
      });
    } catch (err) {
      if (!(err instanceof DestinationRefused)) throw err;
      result = { kind: 'network', detail: `destination refused: ${err.message}` };
    }
    if (signal.aborted || this.#stopped) return;

    const outcome = judge(result);
    const retry = outcome.reason !== null && d.attempt < d.maxAttempts;
    const delay = RETRY_DELAYS_MS[d.attempt - 1] ?? 0;
    this.#log(hook, {
      delivery_id: d.id,
      event_id: d.eventId,
      event: d.event,
      attempt: d.attempt,
      delivered: outcome.reason === null,
      reason: outcome.reason,
      status_code: outcome.status,
      detail: outcome.detail,
      occurred_at: sentAt.toISOString(),
      next_attempt_at: retry ? new Date(clock.now().getTime() + delay).toISOString() : null,
    });
    if (outcome.reason === null) return;

    if (retry) {
      d.attempt += 1;
      const handle = this.#o.scheduler.setTimeout(() => {
        if (!this.#waiting.delete(d) || this.#stopped) return;
        this.#ready.push(d);
        this.#pump();
      }, delay);
      this.#waiting.set(d, handle);
      return;
    }
    if (d.maxAttempts === MAX_ATTEMPTS) {
      this.#log(hook, {
        delivery_id: d.id,
        event_id: d.eventId,
        event: d.event,
        attempt: null,
        delivered: false,
        reason: 'exhausted',
        status_code: null,
        detail: `all ${MAX_ATTEMPTS} attempts failed`,
        occurred_at: clock.now().toISOString(),
        next_attempt_at: null,
      });
      this.#o.counters.deliveriesFailed += 1;
    }
  }

  #logDenied(hook: WebhookRecord, deliveryId: string, eventId: string, event: string): void {
    this.#log(hook, {
      delivery_id: deliveryId,
      event_id: eventId,
      event,
      attempt: null,
      delivered: false,
      reason: 'denied',
      status_code: null,
      detail: 'the destination is denied in the application settings; no attempt was made',
      occurred_at: this.#o.clock.now().toISOString(),
      next_attempt_at: null,
    });
  }

  #log(hook: WebhookRecord, entry: DeliveryLogEntry): void {
    this.#o.repo.appendDelivery(hook.id, entry);
  }
}

/** The reason code of an attempt's result; null reason means delivered. */
export function judge(result: AttemptResult): {
  reason: Exclude<DeliveryReason, 'denied' | 'exhausted'> | null;
  status: number | null;
  detail: string;
} {
  if (result.kind === 'network') return { reason: 'delivery_failed', status: null, detail: result.detail };
  const status = result.status;
  if (status >= 200 && status <= 299) return { reason: null, status, detail: `HTTP ${status}` };
  if (status >= 500 && status <= 599) return { reason: 'handler_error', status, detail: `HTTP ${status}` };
  return {
    reason: 'third_party_rejected',
    status,
    detail: status >= 300 && status <= 399 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`,
  };
}
