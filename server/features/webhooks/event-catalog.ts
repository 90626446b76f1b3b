/**
 * The 17 subscribable event names (API.md, Events: "There are 17 subscribable
 * event names. The full list of the 17 and which are dormant: not shown").
 * The list is decided in docs/decisions/014-webhooks.md (clause
 * webhooks.events.catalog.gap).
 *
 * Nine are API.md's own. Eight more complete the families the API already
 * has (recording pause/resume/failure, job start and retry, summary failure,
 * speaker labels, configuration). A name is *dormant* while this build's
 * event bus (server/kernel/events.ts, EVENT_NAMES) cannot carry it: it can be
 * subscribed to but is never delivered. When the bus learns a name, the name
 * stops being dormant by itself.
 *
 * webhook.test is not subscribable: POST /v1/webhooks/{id}/test delivers it
 * to that one webhook whatever it subscribes to. meeting.* and
 * transcription.completed are refused at registration with 400.
 */
import { API_EVENT_NAMES } from '../../kernel/events.ts';
import type { Scope } from '../../kernel/scopes.ts';

export const SUBSCRIBABLE_EVENTS = [
  ...API_EVENT_NAMES,
  // Decided here (dormant in this build).
  'job.started',
  'job.retried',
  'recording.paused',
  'recording.resumed',
  'recording.failed',
  'summary.failed',
  'speaker_labels.updated',
  'config.updated',
] as const;

export type SubscribableEvent = (typeof SUBSCRIBABLE_EVENTS)[number];

/** Names API.md says are not subscribable; refused with 400 like unknown names, with a message saying so. */
export const NOT_SUBSCRIBABLE = ['meeting.created', 'meeting.updated', 'meeting.deleted', 'transcription.completed'] as const;

export function isSubscribable(name: string): name is SubscribableEvent {
  return (SUBSCRIBABLE_EVENTS as readonly string[]).includes(name);
}

/** The scope a token needs to subscribe: record for every recording.* event, read otherwise (API.md, Events). */
export function scopeToSubscribe(name: SubscribableEvent): Extract<Scope, 'read' | 'record'> {
  return name.startsWith('recording.') ? 'record' : 'read';
}
