/**
 * The event bus. Every domain event is published here once, and fans out to
 * whoever listens: SSE wait streams now, webhook delivery later. So a wait
 * and a webhook see the same history.
 *
 * Events carry ids and states, never transcript or summary content
 * (API.md, Events).
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../adapters/clock.ts';

/** API.md's nine named events: all subscribable, all carried by this bus. */
export const API_EVENT_NAMES = [
  'job.completed',
  'job.failed',
  'job.cancelled',
  'job.paused',
  'job.resumed',
  'recording.started',
  'recording.stopped',
  'summary.completed',
  'transcript.updated',
] as const;

/**
 * What the bus carries: API.md's nine, webhook.test (sent to one webhook,
 * never subscribable), and summary.operation.ended: a regeneration operation
 * reached succeeded or failed, for its wait stream. A failed regeneration
 * sends no API event, so the wait needs one of its own; the name is not
 * subscribable, so webhooks never see it (features/webhooks/event-catalog.ts).
 */
export type EventName = (typeof API_EVENT_NAMES)[number] | 'webhook.test' | 'summary.operation.ended';

export interface DomainEvent {
  schema_version: 1;
  event_id: string;
  event: EventName;
  occurred_at: string;
  resource: { kind: 'job' | 'meeting' | 'recording' | 'webhook'; id: string };
  /** Present for summary regeneration operations started through the API. */
  operation_id?: string;
}

export type EventListener = (event: DomainEvent) => void;

export class EventBus {
  readonly #clock: Clock;
  readonly #listeners = new Set<EventListener>();
  /** Where a listener's own failure is reported; it never stops the others. */
  readonly #onListenerError: (err: unknown) => void;

  constructor(clock: Clock, onListenerError: (err: unknown) => void = () => undefined) {
    this.#clock = clock;
    this.#onListenerError = onListenerError;
  }

  publish(event: EventName, resource: DomainEvent['resource'], extra: { operation_id?: string } = {}): DomainEvent {
    const e: DomainEvent = {
      schema_version: 1,
      event_id: `evt_${randomUUID()}`,
      event,
      occurred_at: this.#clock.now().toISOString(),
      resource,
      ...(extra.operation_id !== undefined ? { operation_id: extra.operation_id } : {}),
    };
    for (const listener of [...this.#listeners]) {
      try {
        listener(e);
      } catch (err) {
        this.#onListenerError(err);
      }
    }
    return e;
  }

  subscribe(listener: EventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.#listeners.size;
  }
}
