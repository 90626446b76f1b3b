/** Mutants of the work that goes on after the answer: jobs, wait streams, summary operations, recording, webhooks, pairing. */
import { EventEmitter } from 'node:events';
import { editJson, path, renameKeys, sseAnswer, type Json } from './mutant-edits.ts';
import type { Mutant } from './proxy.ts';
import { answer, errorAnswer, jsonOf, withJson } from './proxy.ts';

/** Pauses seen by the job-wait mutant (job id). */
const pauses = new EventEmitter();
/** Raw pairing tokens seen by the pairing mutant, by pairing id. */
const pairTokens = new Map<string, string>();

export const ASYNC_MUTANTS: Mutant[] = [
  {
    name: 'job-wait-resolves-on-pause',
    description: 'an open job wait resolves with job.paused when the job is paused',
    expect: { 'sse/pause-resume-no-resolve': 'FAIL' },
    request: (req, tools) => {
      const pause = /^\/v1\/jobs\/([^/]+)\/pause$/.exec(path(req));
      if (req.method === 'POST' && pause !== null) {
        pauses.emit('pause', pause[1]);
        return req;
      }
      const wait = /^\/v1\/jobs\/([^/]+)\/wait$/.exec(path(req));
      if (req.method !== 'GET' || wait === null) return req;
      return new Promise((resolve) => {
        const onPause = (id: string): void => {
          if (id !== wait[1]) return;
          pauses.off('pause', onPause);
          resolve(sseAnswer('job.paused', { job_id: id, state: 'pausing' }));
        };
        pauses.on('pause', onPause);
        tools.forward(req).then(
          (res) => {
            pauses.off('pause', onPause);
            resolve(res);
          },
          () => resolve(errorAnswer(502, 'internal')),
        );
      });
    },
  },
  {
    name: 'sse-two-events',
    description: 'wait streams send a second event before closing',
    expect: { 'sse/job-wait': 'FAIL' },
    response: (req, res) =>
      path(req).endsWith('/wait') && res.status === 200 && (res.headers['content-type'] ?? '').startsWith('text/event-stream')
        ? { ...res, body: Buffer.concat([res.body, Buffer.from('event: done\ndata: {}\n\n')]) }
        : res,
  },
  {
    name: 'job-state-completed',
    description: 'a succeeded job reports state completed',
    expect: { 'jobs/lifecycle-model': 'FAIL' },
    response: editJson(
      (r) => /^\/v1\/jobs(\/[^/]+)?$/.test(path(r)),
      (b) => JSON.parse(JSON.stringify(b).replace(/"state":"succeeded"/g, '"state":"completed"')) as unknown,
    ),
  },
  {
    name: 'pause-import-allowed',
    description: 'pausing an import job is accepted',
    expect: { 'jobs/pause-import-409': 'FAIL' },
    response: (req, res) =>
      /\/pause$/.test(path(req)) && (jsonOf(res) as { error?: { code?: string } } | undefined)?.error?.code === 'import_not_pausable'
        ? answer(200, { ok: true })
        : res,
  },
  {
    name: 'retry-any-state',
    description: 'retry of a job that is not failed and retryable is accepted',
    expect: { 'jobs/retry': 'FAIL' },
    response: (req, res) =>
      /\/retry$/.test(path(req)) &&
      res.status === 409 &&
      (jsonOf(res) as { error?: { code?: string } } | undefined)?.error?.code !== 'source_gone'
        ? answer(202, { ok: true })
        : res,
  },
  {
    name: 'diarization-duplicate-accepted',
    description: 'a second diarization for a meeting with one running is accepted',
    expect: { 'jobs/diarization': 'FAIL' },
    response: (req, res) => (path(req) === '/v1/jobs/diarization' && res.status === 409 ? answer(202, { job_id: 'job_duplicate' }) : res),
  },
  {
    name: 'job-error-unredacted',
    description: 'job errors show home paths in full',
    expect: { 'jobs/error-redaction': 'FAIL' },
    response: editJson(
      (r) => /^\/v1\/jobs\/[^/]+$/.test(path(r)),
      (b) => (typeof b.error === 'string' ? { ...b, error: b.error.replace(/~\//g, '/home/someone/') } : b),
    ),
  },
  {
    name: 'size-cap-400',
    description: 'an import above 2 GB answers 400 instead of 413',
    expect: { 'jobs/import-size-cap': 'FAIL' },
    upload: (status, headers) => (status === 413 ? { status: 400, headers } : { status, headers }),
  },
  {
    name: 'budget-429-without-retry-after',
    description: '429 import_budget_full without a Retry-After header',
    expect: { 'jobs/import-budget': 'FAIL' },
    upload: (status, headers) => {
      const { 'retry-after': _r, ...rest } = headers;
      return { status, headers: status === 429 ? rest : headers };
    },
  },
  {
    name: 'summary-process-id',
    description: 'regenerate names the operation id process_id',
    expect: { 'summary/regenerate-id-name': 'NON_STRICT' },
    response: editJson(
      (r) => /\/summary\/regenerate$/.test(path(r)),
      (b) => renameKeys(b, { operation_id: 'process_id' }),
    ),
  },
  {
    name: 'consent-false-accepted',
    description: 'consent_attested false is ignored and the recording starts',
    expect: { 'recording/consent-false': 'NON_STRICT' },
    request: (req) => {
      if (req.method !== 'POST' || path(req) !== '/v1/recording/start') return req;
      const body = (() => {
        try {
          return JSON.parse(req.body.toString('utf8')) as Json;
        } catch {
          return null;
        }
      })();
      if (body === null || body.consent_attested !== false) return req;
      const { consent_attested: _c, ...rest } = body;
      return { ...req, body: Buffer.from(JSON.stringify(rest)) };
    },
  },
  {
    name: 'recording-start-waits',
    description: 'recording start answers only once capture runs (state recording)',
    expect: { 'recording/lifecycle': 'FAIL' },
    response: editJson(
      (r) => path(r) === '/v1/recording/start',
      (b) => ({ ...b, state: 'recording' }),
    ),
  },
  {
    name: 'webhook-other-owner-readable',
    description: 'a webhook of another owner can be read',
    expect: { 'webhooks/owner-only': 'FAIL' },
    response: (req, res) =>
      req.method === 'GET' && /^\/v1\/webhooks\/[^/]+$/.test(path(req)) && res.status === 403
        ? answer(200, {
            id: path(req).split('/').pop(),
            url: 'https://93.184.216.34/',
            events: ['job.completed'],
            approval_state: 'pending',
          })
        : res,
  },
  {
    name: 'webhook-secret-readable',
    description: 'GET /v1/webhooks/{id} returns hmac_secret again',
    expect: { 'webhooks/create': 'FAIL' },
    response: editJson(
      (r) => r.method === 'GET' && /^\/v1\/webhooks\/[^/]+$/.test(path(r)),
      (b) => ({ ...b, hmac_secret: 'whsec_leaked' }),
    ),
  },
  {
    name: 'webhook-signing-key-differs',
    description: 'the hmac_secret returned at registration is not the key deliveries are signed with',
    expect: { 'webhooks/delivery-basics': 'FAIL' },
    response: editJson(
      (r) => r.method === 'POST' && path(r) === '/v1/webhooks',
      (b) => (typeof b.hmac_secret === 'string' ? { ...b, hmac_secret: `${b.hmac_secret}x` } : b),
    ),
  },
  {
    name: 'webhook-decimal-loopback-accepted',
    description: 'the private-address check misses numeric host spellings (http://2130706433/)',
    expect: { 'webhooks/url-hostile': 'FAIL' },
    request: (req) => {
      if (req.method !== 'POST' || path(req) !== '/v1/webhooks') return req;
      try {
        const url = (JSON.parse(req.body.toString('utf8')) as { url?: string }).url ?? '';
        const host = /^[a-z]+:\/\/([^/:?#]+)/i.exec(url)?.[1] ?? '';
        if (!/^\d+(\.\d+){3}$/.test(host) && !host.startsWith('[') && /^(0x[0-9a-f]+|\d+)([.](0x[0-9a-f]+|\d+))*$/i.test(host)) {
          return answer(201, {
            id: 'wh_mutant',
            url,
            events: ['job.completed'],
            delivery_mode: 'at-least-once',
            created_at: new Date().toISOString(),
            hmac_secret: 'whsec_mutant_0123456789',
          });
        }
      } catch {
        return req;
      }
      return req;
    },
  },
  {
    name: 'webhook-meeting-events-accepted',
    description: 'meeting.* events are silently dropped from a registration instead of refused',
    expect: { 'webhooks/create': 'FAIL' },
    request: (req) => {
      if (req.method !== 'POST' || path(req) !== '/v1/webhooks') return req;
      try {
        const body = JSON.parse(req.body.toString('utf8')) as { events?: unknown };
        if (!Array.isArray(body.events)) return req;
        const events = body.events.filter((e) => !/^(meeting\.|transcription\.completed$)/.test(String(e)));
        if (events.length === 0 || events.length === body.events.length) return req;
        return { ...req, body: Buffer.from(JSON.stringify({ ...body, events })) };
      } catch {
        return req;
      }
    },
  },
  {
    name: 'webhooks-all-for-any-token',
    description: 'all=true is ignored for tokens that may not use it (own list, 200)',
    expect: { 'webhooks/list-all': 'FAIL' },
    response: (req, res, tools) => {
      if (req.method !== 'GET' || path(req) !== '/v1/webhooks' || req.url.searchParams.get('all') !== 'true' || res.status !== 403)
        return res;
      const url = new URL(req.url.toString());
      url.searchParams.delete('all');
      return tools.forward({ ...req, url });
    },
  },
  {
    name: 'pairing-token-every-poll',
    description: 'the raw pairing token is returned on every poll after approval',
    expect: { 'pairing/token-once': 'FAIL' },
    response: (req, res) => {
      const id = /^\/v1\/pair\/([^/]+)$/.exec(path(req))?.[1];
      if (id === undefined || res.status !== 200) return res;
      const body = jsonOf(res) as Json | undefined;
      if (body === undefined || body === null) return res;
      if (typeof body.token === 'string') {
        pairTokens.set(id, body.token);
        return res;
      }
      const token = pairTokens.get(id);
      return token === undefined ? res : withJson(res, { ...body, token });
    },
  },
];
