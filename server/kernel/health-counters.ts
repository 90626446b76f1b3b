/**
 * The counters GET /health reports. They count since the application started
 * (a restart or a Control API reset sets them to zero).
 */
export class HealthCounters {
  /** Events lost before any delivery attempt, e.g. a full delivery queue. */
  eventsDropped = 0;
  /** Webhook deliveries that used every retry. */
  deliveriesFailed = 0;
  /** Requests let through because license verification could not complete. */
  failOpenTotal = 0;

  reset(): void {
    this.eventsDropped = 0;
    this.deliveriesFailed = 0;
    this.failOpenTotal = 0;
  }
}
