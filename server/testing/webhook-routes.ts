/**
 * What the webhook route tests share (server/features/webhooks/handlers.test.ts
 * and handlers-delivery.test.ts): the destination corpora, registering and
 * approving a webhook, reading its delivery log, and an app with a receiver.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import request from 'supertest';
import { CONTROL_AUTH, webhookTestApp, type WebhookTestApp } from './webhook-app.ts';
import { startReceiver, type Receiver } from './webhook-receiver.ts';

export interface CorpusEntry {
  url: string;
  resolves_to?: string[];
}

export function corpus(name: string): CorpusEntry[] {
  return (JSON.parse(readFileSync(new URL(`../../fixtures/webhooks/${name}`, import.meta.url), 'utf8')) as { urls: CorpusEntry[] }).urls;
}

export function resolverTable(entries: CorpusEntry[]): Record<string, string[]> {
  const table: Record<string, string[]> = { 'hooks.example': ['93.184.216.34'] };
  for (const e of entries) {
    if (e.resolves_to !== undefined) table[new URL(e.url).hostname.replace(/\.+$/, '')] = e.resolves_to;
  }
  return table;
}

export const PUBLIC = 'https://hooks.example/receive';

export function assertError(res: request.Response, status: number, code: string, message?: RegExp): void {
  assert.equal(res.status, status, `${res.status} ${JSON.stringify(res.body)}`);
  assert.equal(res.body.error.code, code, JSON.stringify(res.body));
  if (message !== undefined) assert.match(res.body.error.message, message);
}

export async function create(h: WebhookTestApp, auth: string, body: Record<string, unknown>) {
  return request(h.app).post('/v1/webhooks').set('Authorization', auth).send(body);
}

export async function approve(h: WebhookTestApp, id: string, state: 'allowed' | 'denied' = 'allowed') {
  const res = await request(h.control).post(`/control/webhooks/${id}/approval`).set('Authorization', CONTROL_AUTH).send({ state });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res;
}

/** Polls the delivery log until `done` says so. */
export async function logUntil(h: WebhookTestApp, auth: string, id: string, done: (entries: Record<string, unknown>[]) => boolean) {
  const until = Date.now() + 8000;
  for (;;) {
    const res = await request(h.app).get(`/v1/webhooks/${id}/deliveries`).set('Authorization', auth);
    assert.equal(res.status, 200);
    const entries = res.body.deliveries as Record<string, unknown>[];
    if (done(entries)) return entries;
    if (Date.now() > until) assert.fail(`delivery log never got there: ${JSON.stringify(entries)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function withReceiver(
  run: (h: WebhookTestApp, r: Receiver) => Promise<void>,
  opts: Parameters<typeof webhookTestApp>[0] = {},
) {
  const r = await startReceiver();
  const h = webhookTestApp({ ...opts, allowlist: [r.target, ...(opts.allowlist ?? [])] });
  try {
    await run(h, r);
  } finally {
    h.close();
    await r.close();
  }
  assert.deepEqual(h.gw.errors, []);
}
