/**
 * The webhook receiver: an HTTP server on an ephemeral port that records
 * every delivery with its raw body and headers, and answers as a check tells
 * it (a status, a connection reset, or no answer at all). Each check makes
 * its own endpoints (own paths), so deliveries are told apart per webhook.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Delivery } from './exchange.ts';
import { cut } from './exchange.ts';

export type Reply =
  { status: number; body?: string; headers?: Record<string, string>; delayMs?: number } | { action: 'reset' } | { action: 'hang' };

function describeReply(r: Reply): string {
  if ('action' in r) return r.action;
  return String(r.status);
}

export class Endpoint {
  readonly name: string;
  readonly path: string;
  readonly url: string;
  /** host:port as the target sees it (for the local-webhook-targets allowlist). */
  readonly hostPort: string;
  readonly deliveries: Delivery[] = [];
  /** Deliveries the filter (only) set aside: answered 204, never counted or waited for. */
  readonly others: Delivery[] = [];
  #replies: Reply[];
  #only: ((d: Delivery) => boolean) | null = null;
  #waiters: Array<() => void> = [];

  constructor(name: string, path: string, publicBase: string, hostPort: string, replies: Reply[]) {
    this.name = name;
    this.path = path;
    this.url = `${publicBase}${path}`;
    this.hostPort = hostPort;
    this.#replies = replies;
  }

  /** What to answer next: each delivery takes the next reply; the last one repeats. */
  reply(replies: Reply | Reply[]): void {
    this.#replies = Array.isArray(replies) ? [...replies] : [replies];
  }

  /**
   * Keeps only the deliveries `keep` accepts: the rest (a target reports every resource's events to
   * every subscribed webhook, e.g. the jobs of checks run beside this one) are answered 204 and go to
   * `others`, so they neither take a reply of the sequence nor count in deliveries, waitFor or quiet.
   */
  only(keep: (d: Delivery) => boolean): void {
    this.#only = keep;
  }

  /** @internal */
  accepts(d: Delivery): boolean {
    return this.#only === null || this.#only(d);
  }

  /** @internal */
  nextReply(): Reply {
    if (this.#replies.length > 1) return this.#replies.shift()!;
    return this.#replies[0] ?? { status: 204 };
  }

  /** @internal */
  add(delivery: Delivery): void {
    this.deliveries.push(delivery);
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }

  /** Resolves when `count` deliveries arrived, or at the timeout with what is there. */
  async waitFor(count: number, timeoutMs: number): Promise<Delivery[]> {
    const until = Date.now() + timeoutMs;
    while (this.deliveries.length < count) {
      const left = until - Date.now();
      if (left <= 0) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return [...this.deliveries];
  }

  /** Resolves when the first `count` deliveries have been answered (a slow receiver answers late), or at the timeout. */
  async answered(count: number, timeoutMs: number): Promise<Delivery[]> {
    const until = Date.now() + timeoutMs;
    const done = (): boolean => this.deliveries.length >= count && this.deliveries.slice(0, count).every((d) => d.answeredAt !== undefined);
    while (!done() && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    return [...this.deliveries];
  }

  /** Waits until nothing has arrived for `quietMs` (at most `maxMs`). */
  async quiet(quietMs: number, maxMs: number): Promise<Delivery[]> {
    const until = Date.now() + maxMs;
    let seen = this.deliveries.length;
    while (Date.now() < until) {
      await new Promise((r) => setTimeout(r, Math.min(quietMs, Math.max(0, until - Date.now()))));
      if (this.deliveries.length === seen) break;
      seen = this.deliveries.length;
    }
    return [...this.deliveries];
  }
}

export interface ReceiverOptions {
  /** Address to listen on (default 127.0.0.1; 0.0.0.0 when publicHost is not loopback). */
  listenHost?: string;
  /** Host the target must use to reach the receiver (default: the listen host). */
  publicHost?: string;
  port?: number;
  /**
   * Added to every answer's delay (a slow receiver: the suite's self-test runs the whole suite with
   * one, since a conforming target must tolerate a receiver that answers late; conformance/mutants/variants.ts).
   */
  answerDelayMs?: number;
  /**
   * The first attempt of every event is held this long before the receiver records and answers it: as
   * if the target sent it that much later (a target slow to deliver: the slow-target variant of
   * variants.ts). Its retries are not held: a slow target still keeps its retry schedule.
   */
  arrivalDelayMs?: number;
}

export class Receiver {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #endpoints = new Map<string, Endpoint>();
  readonly publicHost: string;
  readonly port: number;
  /** Requests to paths no endpoint owns. */
  readonly strays: Delivery[] = [];
  #seq = 0;
  #counter = 0;
  readonly #answerDelayMs: number;
  readonly #arrivalDelayMs: number;
  /** "path event_id" of every event whose first attempt has arrived there (arrivalDelayMs holds only that one). */
  readonly #arrived = new Set<string>();

  private constructor(server: Server, publicHost: string, port: number, delays: { answerMs: number; arrivalMs: number }) {
    this.#server = server;
    this.#answerDelayMs = delays.answerMs;
    this.#arrivalDelayMs = delays.arrivalMs;
    this.publicHost = publicHost;
    this.port = port;
    server.on('connection', (s: Socket) => {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
    });
  }

  static async start(options: ReceiverOptions = {}): Promise<Receiver> {
    const publicHost = options.publicHost ?? options.listenHost ?? '127.0.0.1';
    const isLoopback = /^(127\.|localhost$|::1$|\[::1\]$)/.test(publicHost);
    const listenHost = options.listenHost ?? (isLoopback ? '127.0.0.1' : '0.0.0.0');
    const holder: { receiver?: Receiver } = {};
    const server = createServer((req, res) => holder.receiver?.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, listenHost, () => resolve());
    });
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    holder.receiver = new Receiver(server, publicHost, port, {
      answerMs: options.answerDelayMs ?? 0,
      arrivalMs: options.arrivalDelayMs ?? 0,
    });
    return holder.receiver;
  }

  get base(): string {
    const host = this.publicHost.includes(':') && !this.publicHost.startsWith('[') ? `[${this.publicHost}]` : this.publicHost;
    return `http://${host}:${this.port}`;
  }

  get hostPort(): string {
    return `${this.publicHost}:${this.port}`;
  }

  /** A new endpoint with its own path; answers 204 unless told otherwise. */
  endpoint(name = 'hook', replies: Reply | Reply[] = { status: 204 }): Endpoint {
    this.#counter += 1;
    const safe = name.replace(/[^A-Za-z0-9_-]/g, '-');
    const path = `/hooks/${this.#counter}-${safe}`;
    const ep = new Endpoint(name, path, this.base, this.hostPort, Array.isArray(replies) ? replies : [replies]);
    this.#endpoints.set(path, ep);
    return ep;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      // receivedAt stays the arrival: a held attempt reads as answered late, as behind a slow receiver.
      const arrived = Date.now();
      if (this.#arrivalDelayMs > 0 && this.#firstAttempt(req.url ?? '', raw))
        setTimeout(() => this.record(req, res, raw, arrived), this.#arrivalDelayMs);
      else this.record(req, res, raw, arrived);
    });
  }

  /**
   * Is this the first attempt of its event at this endpoint (by path and event_id: one event goes to every
   * webhook subscribed to it)? A body without an event_id counts as a first attempt.
   */
  #firstAttempt(path: string, raw: Buffer): boolean {
    let id: unknown;
    try {
      id = (JSON.parse(raw.toString('utf8')) as { event_id?: unknown }).event_id;
    } catch {
      return true;
    }
    if (typeof id !== 'string') return true;
    const key = `${path} ${id}`;
    if (this.#arrived.has(key)) return false;
    this.#arrived.add(key);
    return true;
  }

  /** Records a delivery that has arrived and answers it. */
  private record(req: IncomingMessage, res: ServerResponse, raw: Buffer, arrived: number): void {
    const path = (req.url ?? '/').split('?')[0]!;
    const ep = this.#endpoints.get(path);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : (v ?? '');
    this.#seq += 1;
    const delivery: Delivery = {
      seq: this.#seq,
      receivedAt: arrived,
      endpoint: ep?.name ?? '(none)',
      method: req.method ?? '',
      path: req.url ?? '',
      headers,
      bodyBase64: raw.toString('base64'),
      body: cut(raw.toString('utf8')).text,
      answered: '',
    };
    const kept = ep?.accepts(delivery) ?? false;
    const reply: Reply = ep === undefined ? { status: 404 } : kept ? ep.nextReply() : { status: 204 };
    delivery.answered = describeReply(reply);
    if (ep === undefined) this.strays.push(delivery);
    else if (kept) ep.add(delivery);
    else ep.others.push(delivery);
    if ('action' in reply) {
      if (reply.action === 'reset') {
        req.socket.destroy();
        delivery.answeredAt = Date.now();
      }
      // 'hang': never answer; the socket is closed with the receiver.
      return;
    }
    const send = (): void => {
      res.writeHead(reply.status, { 'content-type': 'text/plain', ...(reply.headers ?? {}) });
      res.end(reply.body ?? '');
      delivery.answeredAt = Date.now();
    };
    const delayMs = (reply.delayMs ?? 0) + this.#answerDelayMs;
    if (delayMs > 0) setTimeout(send, delayMs);
    else send();
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** The raw bytes of a delivery (the signature covers exactly these). */
export function rawBody(d: Delivery): Buffer {
  return Buffer.from(d.bodyBase64, 'base64');
}
