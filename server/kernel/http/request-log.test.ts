/**
 * The log: request ids, the access log (off unless asked) and the failure
 * lines name a request by id, method and route template, never by its raw
 * path, query or headers; redaction censors secret-bearing fields anyway.
 * The whole-process guarantee (no secret in any output of a real run, with
 * the access log on at level debug) is server/security/secrets-in-logs.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import request from 'supertest';
import { createApp, logFailure } from '../../app.ts';
import type { MeetingsService } from '../../features/meetings/service.ts';
import { testGateway } from '../../testing/gateway.ts';
import { createLogger, REDACTED } from './logger.ts';
import { requestId } from './request-log.ts';

function capture(level: 'info' | 'debug' = 'info') {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const logger = createLogger(
    { level },
    {
      write(line: string) {
        raw.push(line);
        lines.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  );
  return { logger, lines, raw };
}

const fakeReq = (headers: Record<string, string>) => ({ headers, method: 'GET', url: '/v1/whoami' }) as unknown as IncomingMessage;

test('a request id: an incoming X-Request-Id of safe characters is kept, anything else replaced; one id per request', () => {
  assert.equal(requestId(fakeReq({ 'x-request-id': 'client-42.a:b_c' })), 'client-42.a:b_c');
  const made = requestId(fakeReq({ 'x-request-id': 'has space' }));
  assert.match(made, /^[0-9a-f]{8}-[0-9a-z]+$/);
  assert.match(requestId(fakeReq({ 'x-request-id': 'x'.repeat(129) })), /^[0-9a-f]{8}-/);
  const req = fakeReq({});
  assert.equal(requestId(req), requestId(req), 'stable within a request');
  assert.notEqual(requestId(fakeReq({})), requestId(fakeReq({})), 'unique between requests');
});

test('the access log: off by default; on, one line per request by route template, with no path, query or token', async () => {
  const gw = testGateway();
  try {
    const token = gw.token(['read']);
    const quiet = capture();
    const logError = (err: unknown, req?: IncomingMessage) => logFailure(quiet.logger, err, req);
    await request(createApp({ ...gw.deps, logError }))
      .get('/v1/whoami')
      .set('Authorization', `Bearer ${token}`)
      .expect(200);
    assert.deepEqual(quiet.lines, [], 'no access line without the access log');

    const log = capture();
    const app = createApp({ ...gw.deps, accessLog: log.logger });
    await request(app).get('/v1/whoami').set('Authorization', `Bearer ${token}`).set('X-Request-Id', 'abc-1').expect(200);
    await request(app).get(`/v1/meetings/${token}?access_token=${token}`).set('Authorization', `Bearer ${token}`).expect(404);
    await request(app).get('/v1/nowhere').expect(404);
    assert.equal(log.lines.length, 3);
    const [whoami, meeting, nowhere] = log.lines;
    assert.deepEqual(
      {
        req_id: whoami!['req_id'],
        method: whoami!['method'],
        route: whoami!['route'],
        status: whoami!['status'],
        level: whoami!['level'],
        msg: whoami!['msg'],
      },
      { req_id: 'abc-1', method: 'GET', route: '/v1/whoami', status: 200, level: 'info', msg: 'request' },
    );
    assert.equal(typeof whoami!['ms'], 'number');
    assert.equal(meeting!['route'], '/v1/meetings/{id}');
    assert.equal(meeting!['status'], 404);
    assert.equal(nowhere!['route'], null);
    assert.ok(!log.raw.join('').includes(token), 'the token is in no line');
    assert.ok(!log.raw.join('').includes('access_token'), 'no query string');
  } finally {
    gw.close();
  }
});

test('an unexpected failure is logged at level error with the request id, route and stack; the client sees the envelope only', async () => {
  const gw = testGateway();
  try {
    const token = gw.token(['read']);
    const log = capture();
    const meetings = Object.assign(Object.create(gw.deps.meetings) as MeetingsService, {
      list(): never {
        throw new Error('the store broke');
      },
    });
    const app = createApp({
      ...gw.deps,
      features: { ...gw.deps.features, meetings: { meetings } },
      logError: (err, req) => logFailure(log.logger, err, req),
    });
    const res = await request(app)
      .get('/v1/meetings?limit=5')
      .set('Authorization', `Bearer ${token}`)
      .set('X-Request-Id', 'r-500')
      .expect(500);
    assert.equal(res.body.error.code, 'internal');
    assert.equal(log.lines.length, 1);
    const line = log.lines[0]!;
    assert.equal(line['level'], 'error');
    assert.equal(line['msg'], 'request failed');
    assert.equal(line['req_id'], 'r-500');
    assert.equal(line['route'], '/v1/meetings');
    const err = line['err'] as Record<string, unknown>;
    assert.equal(err['message'], 'the store broke');
    assert.match(String(err['stack']), /the store broke/);
    assert.ok(!log.raw.join('').includes(token));
  } finally {
    gw.close();
  }
});

test('redaction: secret-bearing fields are censored wherever a log call puts them', () => {
  const log = capture('debug');
  log.logger.debug(
    {
      token: 'mas_AAAA',
      secret: 'whsec_BBBB',
      webhook: { hmac_secret: 'whsec_CCCC', url: 'http://127.0.0.1:9/x' },
      req: { headers: { authorization: 'Bearer mas_DDDD', cookie: 'mas_settings=EEEE', host: 'localhost' } },
      config: { api_key: 'sk-FFFF', password: 'GGGG' },
    },
    'fields',
  );
  const text = log.raw.join('');
  for (const secret of ['AAAA', 'BBBB', 'CCCC', 'DDDD', 'EEEE', 'FFFF', 'GGGG']) assert.ok(!text.includes(secret), secret);
  const line = log.lines[0]!;
  assert.equal(line['token'], REDACTED);
  assert.equal((line['req'] as { headers: Record<string, unknown> }).headers['host'], 'localhost', 'the rest is kept');
});

test('an error is logged as its type, message and stack, without the other properties it carries', () => {
  const log = capture();
  log.logger.error(
    { err: Object.assign(new Error('refused'), { code: 'E_X', config: { headers: { authorization: 'Bearer mas_HHHH' } }, body: 'IIII' }) },
    'failed',
  );
  const err = log.lines[0]!['err'] as Record<string, unknown>;
  assert.deepEqual(Object.keys(err).sort(), ['code', 'message', 'stack', 'type']);
  assert.ok(!log.raw.join('').includes('HHHH') && !log.raw.join('').includes('IIII'));
});
