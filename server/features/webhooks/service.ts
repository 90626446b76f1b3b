/**
 * Webhooks: registration, ownership, approval and the delivery machinery
 * behind /v1/webhooks and the Control API's webhook routes.
 * Decisions: docs/decisions/014-webhooks.md.
 *
 * Rule order for every /v1/webhooks route, after the gates of auth.ts and the
 * request's own syntax and schema (400/422):
 *   1. 403 forbidden while settings.webhooks_enabled is off (read live);
 *   2. 404 not_found for an unknown id, then 403 forbidden for another
 *      owner's webhook;
 *   3. the route's own rules (registration: event names 400, the record
 *      scope for recording.* 403 insufficient_scope, the destination 400).
 *
 * The 'Local webhook targets' allowlist is a snapshot taken when this
 * service is built, i.e. at startup and at every restart (clause
 * webhooks.allowlist.read-at-startup); a change is honoured after a restart.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../../adapters/clock.ts';
import { ApiError } from '../../kernel/errors.ts';
import type { EventBus } from '../../kernel/events.ts';
import type { HealthCounters } from '../../kernel/health-counters.ts';
import { satisfies } from '../../kernel/scopes.ts';
import type { Database } from '../../kernel/store/database.ts';
import type { SettingsRepo } from '../../kernel/store/settings-repo.ts';
import type { TokenRecord } from '../../kernel/store/tokens-repo.ts';
import { defineStateMachine, transition } from '../../kernel/state-machine.ts';
import { APPROVAL_STATES, WebhooksRepo, type ApprovalState, type DeliveryLogEntry, type DeliveryMode, type WebhookRecord } from './repo.ts';
import { Allowlist, checkDestination, DestinationRefused, systemResolver, type CheckedDestination, type Resolver } from './destination.ts';
import { WebhookDispatcher } from './dispatcher.ts';
import { isSubscribable, NOT_SUBSCRIBABLE, scopeToSubscribe, type SubscribableEvent } from './event-catalog.ts';
import { globalScheduler, type Scheduler } from './scheduler.ts';
import { createHttpTransport, type Transport } from './transport.ts';
import { SERVER_VERSION } from '../../kernel/version.ts';
import { clip } from '../../../common/clip.ts';

/**
 * The approval states and the moves between them (API.md, Webhook approval
 * states). Registration makes a webhook pending; the application's settings
 * (here the Control API) allow or deny it. Nothing leaves denied: asking is
 * a 409 conflict. Asking for the state a webhook is already in is a no-op.
 */
const APPROVAL_EVENTS = ['allow', 'deny'] as const;
type ApprovalEvent = (typeof APPROVAL_EVENTS)[number];

export const APPROVAL_MACHINE = defineStateMachine({
  name: 'webhook approval',
  states: APPROVAL_STATES,
  events: APPROVAL_EVENTS,
  rows: [
    { from: ['pending', 'allowed'], on: 'allow', to: 'allowed' },
    { from: ['pending', 'allowed', 'denied'], on: 'deny', to: 'denied' },
  ],
});

/** The event of an approval request (the Control API names the state it wants). */
const APPROVAL_EVENT_OF: Record<Exclude<ApprovalState, 'pending'>, ApprovalEvent> = { allowed: 'allow', denied: 'deny' };

// ── DTOs: every shape a webhook takes on the wire, the API's and the Control API's ──

/** A webhook as the API shows it: never its secret. */
export function webhookDto(hook: WebhookRecord) {
  return {
    id: hook.id,
    url: hook.url,
    events: hook.events,
    delivery_mode: hook.delivery_mode,
    created_at: hook.created_at,
    approval_state: hook.approval_state,
    owner_token_id: hook.token_id,
  };
}

/** The answer to a registration: the only time the secret is shown. */
export function createdWebhookDto(hook: WebhookRecord) {
  return {
    id: hook.id,
    url: hook.url,
    events: hook.events,
    delivery_mode: hook.delivery_mode,
    created_at: hook.created_at,
    hmac_secret: hook.secret,
  };
}

/** A webhook as the application's settings see it: its owner, never its secret. */
export function controlWebhookView(hook: WebhookRecord) {
  return {
    id: hook.id,
    owner_token_id: hook.token_id,
    url: hook.url,
    events: hook.events,
    delivery_mode: hook.delivery_mode,
    approval_state: hook.approval_state,
    created_at: hook.created_at,
    updated_at: hook.updated_at,
  };
}

/** Generated secrets: a recognisable prefix and 32 random bytes (256 bits), base64url. */
const SECRET_PREFIX = 'whsec_';

export interface RegisterInput {
  url: string;
  events: string[];
  delivery_mode?: DeliveryMode | undefined;
  secret?: string | undefined;
}

export interface WebhooksServiceOptions {
  db: Database;
  bus: EventBus;
  clock: Clock;
  counters: HealthCounters;
  settings: SettingsRepo;
  /** 'Local webhook targets' as read at startup. */
  allowlist: readonly string[];
  resolver?: Resolver;
  transport?: Transport;
  scheduler?: Scheduler;
  queueLimit?: number;
  concurrency?: number;
  attemptTimeoutMs?: number;
  logError?: (err: unknown) => void;
}

/** What a test (or an embedding) may replace in webhook delivery: createDeps passes these through. */
export type WebhookDeliveryOverrides = Partial<
  Pick<WebhooksServiceOptions, 'resolver' | 'transport' | 'scheduler' | 'queueLimit' | 'concurrency' | 'attemptTimeoutMs'>
>;

export class WebhooksService {
  readonly repo: WebhooksRepo;
  readonly dispatcher: WebhookDispatcher;
  readonly #o: WebhooksServiceOptions;
  readonly #allowlist: Allowlist;
  readonly #resolver: Resolver;
  #unsubscribe: (() => void) | null = null;

  constructor(opts: WebhooksServiceOptions) {
    this.#o = opts;
    this.repo = new WebhooksRepo(opts.db);
    this.#allowlist = new Allowlist(opts.allowlist);
    this.#resolver = opts.resolver ?? systemResolver;
    this.dispatcher = new WebhookDispatcher({
      repo: this.repo,
      counters: opts.counters,
      clock: opts.clock,
      scheduler: opts.scheduler ?? globalScheduler,
      transport: opts.transport ?? createHttpTransport({ userAgent: `MeetingAutomationService-Webhooks/${SERVER_VERSION}` }),
      check: (url) => this.checkDestination(url),
      enabled: () => opts.settings.get().webhooks_enabled,
      ...(opts.queueLimit !== undefined ? { queueLimit: opts.queueLimit } : {}),
      ...(opts.concurrency !== undefined ? { concurrency: opts.concurrency } : {}),
      ...(opts.attemptTimeoutMs !== undefined ? { attemptTimeoutMs: opts.attemptTimeoutMs } : {}),
      ...(opts.logError !== undefined ? { logError: opts.logError } : {}),
    });
  }

  /** Starts listening to the bus (deps.start). */
  start(): void {
    this.#unsubscribe ??= this.#o.bus.subscribe((event) => this.dispatcher.onEvent(event));
  }

  /** Restart or quit: stop listening, cancel every retry and attempt (deps.shutdown). */
  stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    this.dispatcher.stop();
  }

  /** The destination rules with this start's allowlist and resolver. */
  checkDestination(url: string): Promise<CheckedDestination> {
    return checkDestination(url, { resolver: this.#resolver, allowlist: this.#allowlist });
  }

  /** 403 forbidden while webhook delivery is switched off (clause webhooks.feature-toggle). */
  assertEnabled(): void {
    if (!this.#o.settings.get().webhooks_enabled) {
      throw new ApiError(
        'forbidden',
        "webhooks are switched off in the application's settings (webhooks_enabled); every webhook " +
          'route is refused until they are switched on',
      );
    }
  }

  async register(owner: TokenRecord, input: RegisterInput): Promise<WebhookRecord> {
    const events = [...new Set(input.events)];
    for (const name of events) checkEventName(name);
    const needsRecord = (events as SubscribableEvent[]).filter((e) => scopeToSubscribe(e) === 'record');
    if (needsRecord.length > 0 && !satisfies(owner.scopes, 'record')) {
      throw new ApiError('insufficient_scope', `subscribing to ${needsRecord.join(', ')} needs the record scope`);
    }
    try {
      await this.checkDestination(input.url);
    } catch (err) {
      if (err instanceof DestinationRefused) throw new ApiError('bad_request', err.message);
      throw err;
    }
    const now = this.#o.clock.now().toISOString();
    const record: WebhookRecord = {
      id: `whk_${randomUUID()}`,
      token_id: owner.id,
      url: input.url,
      events,
      delivery_mode: input.delivery_mode ?? 'at-least-once',
      secret: input.secret ?? `${SECRET_PREFIX}${randomBytes(32).toString('base64url')}`,
      approval_state: 'pending',
      created_at: now,
      updated_at: now,
    };
    this.repo.create(record);
    return record;
  }

  listOwn(owner: TokenRecord): WebhookRecord[] {
    return this.repo.listByOwner(owner.id);
  }

  /** ?all=true: the delete scope (403 insufficient_scope), then a first_party token (403 forbidden). */
  listEveryone(caller: TokenRecord): WebhookRecord[] {
    if (!satisfies(caller.scopes, 'delete')) {
      throw new ApiError('insufficient_scope', "listing every owner's webhooks (all=true) needs the delete scope");
    }
    if (caller.kind !== 'first_party') {
      throw new ApiError('forbidden', "listing every owner's webhooks (all=true) is reserved to the application's own (first-party) token");
    }
    return this.repo.listAll();
  }

  /** 404 when unknown, 403 when another token owns it. */
  owned(caller: TokenRecord, id: string): WebhookRecord {
    const hook = this.repo.get(id);
    if (hook === null) throw new ApiError('not_found', 'no webhook with this id');
    if (hook.token_id !== caller.id) throw new ApiError('forbidden', 'this webhook belongs to another token');
    return hook;
  }

  delete(caller: TokenRecord, id: string): void {
    this.owned(caller, id);
    this.repo.delete(id);
  }

  deliveries(caller: TokenRecord, id: string): DeliveryLogEntry[] {
    return this.repo.deliveries(this.owned(caller, id).id);
  }

  test(caller: TokenRecord, id: string): { hook: WebhookRecord; event_id: string; delivery_id: string | null } {
    const hook = this.owned(caller, id);
    return { hook, ...this.dispatcher.sendTest(hook) };
  }

  // ── The application's side (Control API) ────────────────────────────────

  get(id: string): WebhookRecord | null {
    return this.repo.get(id);
  }

  listAll(): WebhookRecord[] {
    return this.repo.listAll();
  }

  /** Moves a webhook along APPROVAL_MACHINE: 404 unknown, 409 conflict out of denied. */
  setApproval(id: string, state: Exclude<ApprovalState, 'pending'>): WebhookRecord {
    const hook = this.repo.get(id);
    if (hook === null) throw new ApiError('not_found', 'no webhook with this id');
    if (transition(APPROVAL_MACHINE, hook.approval_state, APPROVAL_EVENT_OF[state]) === null) {
      throw new ApiError('conflict', `a ${hook.approval_state} webhook cannot become ${state}: nothing moves a webhook out of denied`);
    }
    if (hook.approval_state === state) return hook;
    return this.repo.setApproval(id, state, this.#o.clock.now()) ?? hook;
  }
}

function checkEventName(name: string): void {
  if (isSubscribable(name)) return;
  if ((NOT_SUBSCRIBABLE as readonly string[]).includes(name) || name.startsWith('meeting.')) {
    throw new ApiError(
      'bad_request',
      `event ${quotedEventName(name)} is not subscribable (meeting.* and transcription.completed never are)`,
    );
  }
  if (name === 'webhook.test') {
    throw new ApiError('bad_request', 'event webhook.test is not subscribable: POST /v1/webhooks/{id}/test sends it to any webhook');
  }
  throw new ApiError('bad_request', `unknown event name ${quotedEventName(name)}; GET /openapi.json lists the subscribable ones`);
}

/** An event name quoted back in an error: control characters as spaces, at most 60 characters. */
function quotedEventName(text: string): string {
  const oneLine = text.replace(/[\u0000-\u001f\u007f]/g, ' ');
  return `"${clip(oneLine, 60)}"`;
}
