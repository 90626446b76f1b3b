/**
 * The settings page's routes over HTTP, without a browser: what is served
 * without the secret, its security headers, GET /control/tokens, and the
 * browser guard (Host and Origin) in front of every control route.
 * The browser test is server/control/settings-page.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import request from 'supertest';
import { testGateway, type TestGateway } from '../../testing/gateway.ts';
import { createControlApp } from '../app.ts';
import { hostName, isLoopbackHostName } from './guard.ts';
import { PAGE_CSP } from './index.ts';

const SECRET = 'settings-page-secret-0123456789';
/** The page's script: the entry page.html loads, and the modules it imports. */
const SCRIPTS = ['/settings/app.js', '/settings/api.js', '/settings/lists.js'];
const AUTH = `Bearer ${SECRET}`;

async function withControl(run: (control: ReturnType<typeof createControlApp>, gw: TestGateway) => Promise<void>): Promise<void> {
  const gw = testGateway({ pocketsphinxRoots: [] });
  const control = createControlApp({ secret: SECRET, deps: () => gw.deps, restart: () => {}, logError: () => {} });
  try {
    await run(control, gw);
    assert.deepEqual(gw.errors, []);
  } finally {
    gw.close();
  }
}

function assertEnvelope(res: request.Response, status: number, code: string): void {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.match(String(res.headers['content-type']), /^application\/json/);
  assert.equal(res.body.error.code, code);
}

test('the page, its scripts, style sheet and icon are served without the secret, with a strict CSP', () =>
  withControl(async (control) => {
    const expected: Record<string, RegExp> = {
      '/settings': /^text\/html; charset=utf-8$/,
      ...Object.fromEntries(SCRIPTS.map((path) => [path, /^text\/javascript; charset=utf-8$/])),
      '/settings/app.css': /^text\/css; charset=utf-8$/,
      '/settings/icon.svg': /^image\/svg\+xml$/,
    };
    for (const [path, type] of Object.entries(expected)) {
      const res = await request(control).get(path);
      assert.equal(res.status, 200, path);
      assert.match(String(res.headers['content-type']), type, path);
      assert.equal(res.headers['content-security-policy'], PAGE_CSP);
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.equal(res.headers['x-frame-options'], 'DENY');
      assert.equal(res.headers['referrer-policy'], 'no-referrer');
      assert.equal(res.headers['cross-origin-opener-policy'], 'same-origin');
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.equal(res.headers['access-control-allow-origin'], undefined);
    }
    assert.match(PAGE_CSP, /default-src 'self'/);
    assert.match(PAGE_CSP, /script-src 'self'(;|$)/);
    assert.doesNotMatch(PAGE_CSP, /unsafe-inline|unsafe-eval|\*/);
  }));

test('the page holds no inline script, no inline style, no event handler attributes and no external URL', () =>
  withControl(async (control) => {
    const html = (await request(control).get('/settings')).text;
    for (const tag of html.match(/<script\b[^>]*>/g) ?? []) assert.match(tag, /\bsrc="\/settings\/app\.js"/);
    assert.doesNotMatch(html, /<script\b[^>]*>[^<]+<\/script>/);
    assert.doesNotMatch(html, /<style\b/i);
    assert.doesNotMatch(html, /\sstyle=/i);
    assert.doesNotMatch(html, /\son[a-z]+=/i);
    assert.doesNotMatch(html, /(src|href)="(https?:)?\/\//i);
    const imported = new Set<string>();
    for (const path of SCRIPTS) {
      const js = (await request(control).get(path)).text;
      assert.doesNotMatch(js, /innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/, path);
      assert.doesNotMatch(js, /localStorage/, path);
      // Modules import only one another, by relative path: nothing from another origin or another folder.
      for (const [, from] of js.matchAll(/^import\b[^;]*?from '([^']+)';$/gms)) {
        const target = new URL(String(from), `http://localhost${path}`).pathname;
        assert.ok(SCRIPTS.includes(target), `${path} imports ${String(from)}`);
        imported.add(target);
      }
    }
    // Every module the entry reaches is served (and checked above), and nothing else is.
    assert.deepEqual([...imported].sort(), SCRIPTS.filter((path) => path !== '/settings/app.js').sort());
  }));

test('the page is no way around the secret: every /control route still needs it', () =>
  withControl(async (control) => {
    for (const path of ['/control/settings', '/control/tokens', '/control/webhooks', '/control/pairings']) {
      const res = await request(control).get(path);
      assertEnvelope(res, 401, 'unauthorized');
      assert.match(String(res.headers['www-authenticate']), /^Bearer /);
      assertEnvelope(await request(control).get(path).set('Authorization', `Bearer ${SECRET}x`), 401, 'unauthorized');
    }
    // Only GET is added: other methods on /control/tokens are what they were.
    assertEnvelope(await request(control).put('/control/tokens').set('Authorization', AUTH), 404, 'not_found');
  }));

test('GET /control/tokens lists every token, oldest first, without a hash or a raw token', () =>
  withControl(async (control, gw) => {
    const created = await request(control)
      .post('/control/tokens')
      .set('Authorization', AUTH)
      .send({ scopes: ['read', 'write'], name: 'ci' });
    assert.equal(created.status, 201);
    await request(control).patch(`/control/tokens/${created.body.token_id}`).set('Authorization', AUTH).send({ enabled: false });
    const res = await request(control).get('/control/tokens').set('Authorization', AUTH);
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(res.headers['cache-control'], 'no-store');
    const tokens = res.body.tokens as Record<string, unknown>[];
    const mine = tokens.find((t) => t.id === created.body.token_id);
    assert.deepEqual(mine, {
      id: created.body.token_id,
      name: 'ci',
      scopes: ['read', 'write'],
      origin: 'loopback',
      kind: 'standard',
      enabled: false,
      created_at: mine?.created_at,
    });
    assert.equal(tokens.length, gw.deps.tokens.list().length);
    assert.ok(!res.text.includes(created.body.token), 'the raw token is never listed');
    assert.doesNotMatch(res.text, /"hash"|[0-9a-f]{64}/);
  }));

test('Host must name this machine, on every route, before the secret is looked at', () =>
  withControl(async (control) => {
    for (const host of [
      'evil.example',
      'evil.example:8429',
      '127.0.0.1.evil.example',
      'localhost.evil.example',
      '10.0.0.5:8429',
      '[::2]:8429',
      '127.0.0.256',
      '0x7f.0.0.1',
    ]) {
      for (const path of ['/settings', '/control/settings']) {
        assertEnvelope(await request(control).get(path).set('Host', host).set('Authorization', AUTH), 400, 'bad_request');
      }
    }
    for (const host of ['localhost:8429', 'LOCALHOST', 'app.localhost:9', '127.0.0.1', '127.1.2.3:8429', '[::1]:8429', 'localhost.:8429']) {
      assert.equal((await request(control).get('/control/settings').set('Host', host).set('Authorization', AUTH)).status, 200, host);
      assert.equal((await request(control).get('/settings').set('Host', host)).status, 200, host);
    }
  }));

test('a request from another origin or site is refused; the page itself may be opened by a link', () =>
  withControl(async (control) => {
    const host = 'localhost:8429';
    const patch = () => request(control).patch('/control/settings').set('Host', host).set('Authorization', AUTH);
    assertEnvelope(await patch().set('Origin', 'http://evil.example').send({ license: 'none' }), 403, 'forbidden');
    assertEnvelope(await patch().set('Origin', 'null').send({ license: 'none' }), 403, 'forbidden');
    assertEnvelope(await patch().set('Origin', 'http://localhost:8430').send({ license: 'none' }), 403, 'forbidden');
    assertEnvelope(await patch().set('Origin', 'https://localhost:8429').send({ license: 'none' }), 403, 'forbidden');
    assertEnvelope(await patch().set('Sec-Fetch-Site', 'cross-site').send({ license: 'none' }), 403, 'forbidden');
    assertEnvelope(await patch().set('Sec-Fetch-Site', 'same-site').send({ license: 'none' }), 403, 'forbidden');
    assertEnvelope(
      await request(control).get('/control/settings').set('Host', host).set('Authorization', AUTH).set('Origin', 'http://evil.example'),
      403,
      'forbidden',
    );
    // The page's own requests pass.
    const own = await patch().set('Origin', `http://${host}`).set('Sec-Fetch-Site', 'same-origin').send({ license: 'none' });
    assert.equal(own.status, 200);
    assert.equal(own.body.license, 'none');
    // A link from another site may open the page, but nothing else.
    const nav = await request(control)
      .get('/settings')
      .set('Host', host)
      .set('Sec-Fetch-Site', 'cross-site')
      .set('Sec-Fetch-Mode', 'navigate');
    assert.equal(nav.status, 200);
    for (const path of SCRIPTS) {
      assertEnvelope(
        await request(control).get(path).set('Host', host).set('Sec-Fetch-Site', 'cross-site').set('Sec-Fetch-Mode', 'no-cors'),
        403,
        'forbidden',
      );
      assertEnvelope(
        await request(control)
          .get(path)
          .set('Host', host)
          .set('Sec-Fetch-Site', 'cross-site')
          .set('Sec-Fetch-Mode', 'cors')
          .set('Origin', 'http://evil.example'),
        403,
        'forbidden',
      );
    }
    assertEnvelope(
      await request(control)
        .post('/control/reset')
        .set('Host', host)
        .set('Authorization', AUTH)
        .set('Sec-Fetch-Site', 'cross-site')
        .set('Sec-Fetch-Mode', 'navigate'),
      403,
      'forbidden',
    );
    // No CORS: a preflight gets no Access-Control-Allow-* header.
    const preflight = await request(control)
      .options('/control/settings')
      .set('Host', host)
      .set('Origin', 'http://evil.example')
      .set('Access-Control-Request-Method', 'PATCH')
      .set('Access-Control-Request-Headers', 'authorization, content-type');
    assert.ok(preflight.status >= 400);
    assert.equal(preflight.headers['access-control-allow-origin'], undefined);
    assert.equal(preflight.headers['access-control-allow-headers'], undefined);
  }));

test('hostName and isLoopbackHostName', () => {
  assert.equal(hostName('LocalHost:80'), 'localhost');
  assert.equal(hostName('[::1]:8429'), '[::1]');
  assert.equal(hostName('127.0.0.1'), '127.0.0.1');
  assert.equal(hostName('a:b:c'), null);
  assert.equal(hostName('host:123456'), null);
  assert.equal(hostName(''), null);
  assert.equal(isLoopbackHostName('127.0.0.1'), true);
  assert.equal(isLoopbackHostName('127.255.255.255'), true);
  assert.equal(isLoopbackHostName('127.00.0.1'), false);
  assert.equal(isLoopbackHostName('128.0.0.1'), false);
  assert.equal(isLoopbackHostName('[::ffff:127.0.0.1]'), false);
  assert.equal(isLoopbackHostName('evillocalhost'), false);
});
