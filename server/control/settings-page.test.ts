/**
 * The settings page end to end, in a real browser: Debian's chromium driven
 * through playwright-core, against a real Gateway (ephemeral ports, a
 * temporary data folder, the Control API on with a known secret). Every flow
 * of the page is exercised by role and label, and its effect is checked from
 * outside through the Automation API. Screenshots of each major state go to
 * reports/settings-page/*.png.
 *
 * Skipped, with the reason, only when /usr/bin/chromium is missing and CI is
 * not set; in CI it always runs (the Makefile installs chromium).
 * Decisions: docs/decisions/020-settings-page.md.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { browserSkip, launchTestBrowser, REBOUND_NAME } from '../testing/browser.ts';
import { Gateway } from '../gateway.ts';
import { call } from '../testing/http-call.ts';
import { listenerTestOptions } from '../testing/gateway.ts';
import { createLogger } from '../kernel/http/logger.ts';

const SECRET = 'settings-page-browser-secret-0123456789';
const SHOTS = fileURLToPath(new URL('../../reports/settings-page/', import.meta.url));

const skip = browserSkip;

/** Polls until `ok` holds, or fails naming `what`. */
async function eventually<T>(what: string, probe: () => Promise<T>, ok: (value: T) => boolean, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: T = await probe();
  while (!ok(last)) {
    if (Date.now() > deadline) assert.fail(`${what}: still ${JSON.stringify(last)} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
    last = await probe();
  }
  return last;
}

async function textOf(locator: Locator, pattern: RegExp, what: string): Promise<string> {
  return eventually(
    what,
    async () => (await locator.textContent()) ?? '',
    (t) => pattern.test(t),
  );
}

/** The few browser globals the evaluated functions read (the repository's TypeScript has no DOM library). */
interface Win {
  sessionStorage: { length: number; getItem(key: string): string | null };
  localStorage: { length: number };
  document: { cookie: string };
  location: { href: string };
}

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

describe('the settings page in a browser', { skip, timeout: 90_000 }, () => {
  let dataDir = '';
  let gateway: Gateway | null = null;
  let browser: Browser | null = null;
  let context: BrowserContext | null = null;
  let page: Page;
  let receiver: Server | null = null;
  const received: Received[] = [];
  const browserProblems: string[] = [];
  /** The kinds of dialog the page opened: only confirm() is expected (an alert would be injected script). */
  const dialogs: string[] = [];
  const gatewayLog: string[] = [];
  let pageUrl = '';
  let api = '';
  let control = '';
  let shot = 0;

  const whoami = (token: string) => call(`${api}/v1/whoami`, { bearer: token });
  const status = () => page.getByRole('status');
  const screenshot = async (name: string) => {
    shot += 1;
    await page.screenshot({ path: join(SHOTS, `${String(shot).padStart(2, '0')}-${name}.png`), fullPage: true });
  };
  const settingsNow = async () => (await call(`${control}/control/settings`, { bearer: SECRET })).body;

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    dataDir = mkdtempSync(join(tmpdir(), 'mas-settings-page-'));
    gateway = await Gateway.start(
      listenerTestOptions(dataDir, {
        control: { host: '127.0.0.1', port: 0, secret: SECRET },
        logger: createLogger({ level: 'info' }, { write: (line: string) => void gatewayLog.push(line) }),
      }),
    );
    api = gateway.api.url;
    control = gateway.control!.url; // control was asked for at start
    pageUrl = `${control}/settings`;

    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver!.listen(0, '127.0.0.1', resolve));

    browser = await launchTestBrowser();
    context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    page = await context.newPage();
    page.setDefaultTimeout(5000);
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.type());
      void dialog.accept();
    });
    page.on('pageerror', (err) => browserProblems.push(`page error: ${err.message}`));
    page.on('console', (msg) => {
      // A refused secret is a 401 the browser reports as a failed load; anything else is a problem (CSP violations included).
      if (msg.type() === 'error' && !/Failed to load resource: the server responded with a status of 401/.test(msg.text())) {
        browserProblems.push(`console: ${msg.text()}`);
      }
    });
  });

  after(async () => {
    await context?.close();
    await browser?.close();
    if (receiver !== null) {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver!.close(resolve));
    }
    await gateway?.stop();
    if (dataDir !== '') rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a wrong secret and keeps nothing of it', async () => {
    const res = await page.goto(pageUrl);
    assert.equal(res?.status(), 200);
    assert.match(res?.headers()['content-security-policy'] ?? '', /default-src 'self'/);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await screenshot('sign-in');

    await page.getByLabel('Control secret').fill(`${SECRET}-wrong`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await textOf(page.locator('#login-error'), /not recognized/, 'the refusal');
    assert.equal(await page.locator('#app').isHidden(), true);
    assert.equal(await page.evaluate(() => (globalThis as unknown as Win).sessionStorage.length), 0);
    await screenshot('sign-in-refused');
  });

  it('signs in with the secret, keeps it in this tab only, and survives a reload', async () => {
    await page.getByLabel('Control secret').fill(SECRET);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Automation API' }).waitFor();
    await textOf(status(), /Signed in/, 'the sign-in status');
    assert.equal(await page.getByLabel('Control secret').inputValue(), '', 'the secret field is cleared');
    const stored = await page.evaluate(() => ({
      session: (globalThis as unknown as Win).sessionStorage.getItem('mas-control-secret'),
      local: (globalThis as unknown as Win).localStorage.length,
      cookie: (globalThis as unknown as Win).document.cookie,
      url: (globalThis as unknown as Win).location.href,
    }));
    assert.deepEqual(stored, { session: SECRET, local: 0, cookie: '', url: pageUrl });
    await page.reload();
    await page.getByRole('switch', { name: 'Automation API' }).waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Sign in' }).isHidden(), true);
    await screenshot('settings');
  });

  it('switches the Automation API off and on, and changes the license', async () => {
    const token = gateway!.startupToken;
    const sw = page.getByRole('switch', { name: 'Automation API' });
    assert.equal(await sw.isChecked(), true);
    await sw.click();
    await textOf(status(), /Automation API off/, 'the switch status');
    assert.equal((await settingsNow()).automation_api_enabled, false);
    assert.equal((await call(`${api}/health`)).status, 200);
    const off = await whoami(token);
    assert.equal(off.status, 403);
    assert.equal(off.body.error.code, 'api_disabled');
    await screenshot('api-off');
    await sw.click();
    await textOf(status(), /Automation API on/, 'the switch status');
    assert.equal((await whoami(token)).status, 200);

    await page.getByLabel('License').selectOption('none');
    await textOf(status(), /License: none/, 'the license status');
    const unlicensed = await whoami(token);
    assert.equal(unlicensed.status, 402);
    assert.equal(unlicensed.body.error.code, 'license_required');
    await page.getByLabel('License').selectOption('pro');
    await textOf(status(), /License: pro/, 'the license status');
    assert.equal((await whoami(token)).status, 200);
  });

  it('sets pre-arming and LAN access (LAN says it needs a restart)', async () => {
    await page.getByRole('switch', { name: 'Remote recording pre-armed' }).click();
    await textOf(status(), /pre-armed on/, 'the pre-arming status');
    assert.equal((await settingsNow()).remote_recording_prearmed, true);
    await page.getByRole('switch', { name: 'LAN access' }).click();
    await textOf(status(), /LAN access on\. It applies after restart/, 'the LAN status');
    await textOf(page.getByRole('note'), /not yet in effect: LAN access\. Restart/, 'the restart notice');
    assert.equal((await settingsNow()).lan_enabled, true);
    // Back off before any restart: this test never opens the LAN listener.
    await page.getByRole('switch', { name: 'LAN access' }).click();
    await textOf(status(), /LAN access off/, 'the LAN status');
    assert.equal(await page.getByRole('note').isHidden(), true, 'back as it started: nothing to restart for');
    assert.equal((await settingsNow()).lan_enabled, false);
  });

  it('creates a token shown once, disables, enables and revokes it', async () => {
    const form = page.getByRole('form', { name: 'Create a token' });
    await form.getByLabel('Token name').fill('ci');
    await form.getByRole('checkbox', { name: 'write' }).check();
    await form.getByRole('button', { name: 'Create token' }).click();
    const value = page.getByLabel('Token value');
    await value.waitFor();
    const raw = await value.inputValue();
    assert.match(raw, /^mas_/);
    const me = await whoami(raw);
    assert.equal(me.status, 200);
    assert.deepEqual(me.body.scopes, ['read', 'write']);
    await page.getByRole('row', { name: /^ci / }).getByText('Enabled').waitFor();
    await screenshot('token-created');

    await page.getByRole('button', { name: 'Done' }).click();
    assert.equal(await page.getByRole('region', { name: 'New token' }).isHidden(), true);
    assert.equal(await value.inputValue(), '', 'the raw token is gone from the page');
    assert.ok(!(await page.content()).includes(raw), 'the raw token is nowhere in the page');

    await page.getByRole('button', { name: 'Disable token ci' }).click();
    await page.getByRole('row', { name: /^ci / }).getByText('Disabled').waitFor();
    const disabled = await whoami(raw);
    assert.equal(disabled.status, 403);
    assert.equal(disabled.body.error.code, 'consumer_disabled');
    await screenshot('token-disabled');

    await page.getByRole('button', { name: 'Enable token ci' }).click();
    await page.getByRole('row', { name: /^ci / }).getByText('Enabled').waitFor();
    assert.equal((await whoami(raw)).status, 200);

    await page.getByRole('button', { name: 'Revoke token ci' }).click();
    await textOf(status(), /Token ci revoked/, 'the revocation status');
    assert.equal(await page.getByRole('button', { name: 'Revoke token ci' }).count(), 0);
    const revoked = await whoami(raw);
    assert.equal(revoked.status, 401);
    assert.equal(revoked.body.error.code, 'unauthorized');
  });

  it('approves a pairing request with narrowed scopes and rejects another', async () => {
    const asked = await call(`${api}/v1/pair/request`, {
      method: 'POST',
      body: { client_name: 'Alice phone', scopes: ['read', 'record', 'write'] },
    });
    assert.equal(asked.status, 202);
    // A name that would run script if the page ever parsed it as HTML.
    const bob = 'Bob <img src=x onerror=alert(1)>';
    const other = await call(`${api}/v1/pair/request`, { method: 'POST', body: { client_name: bob, scopes: ['read'] } });
    assert.equal(other.status, 202);

    await page.getByRole('button', { name: 'Refresh pairing requests' }).click();
    const alice = page.getByRole('listitem', { name: 'Pairing request from Alice phone' });
    await alice.getByText('pending', { exact: true }).waitFor();
    await textOf(page.getByRole('heading', { name: /Pairing requests/ }), /2 pending/, 'the pending count');
    const grant = alice.getByRole('group', { name: 'Scopes to grant to Alice phone' });
    await grant.getByRole('checkbox', { name: 'write' }).uncheck();
    await screenshot('pairing-pending');
    await alice.getByRole('button', { name: 'Approve Alice phone' }).click();
    await alice.getByText('approved', { exact: true }).waitFor();

    const first = await call(`${api}/v1/pair/${asked.body.pairing_id}`);
    assert.equal(first.status, 200);
    assert.equal(first.body.state, 'approved');
    assert.deepEqual(first.body.granted_scopes, ['read', 'record']);
    assert.match(first.body.token, /^mas_/);
    const second = await call(`${api}/v1/pair/${asked.body.pairing_id}`);
    assert.equal(second.body.token, undefined, 'the token is handed out once');
    const paired = await whoami(first.body.token as string);
    assert.equal(paired.status, 200);
    assert.deepEqual(paired.body.scopes, ['read', 'record']);
    // The paired device's token is in the token list now.
    await page
      .getByRole('row', { name: /Alice phone/ })
      .getByText('paired')
      .waitFor();

    const bobItem = page.getByRole('listitem', { name: `Pairing request from ${bob}` });
    await bobItem.getByText(bob, { exact: true }).waitFor(); // shown as text
    assert.equal(await page.locator('#pairings img').count(), 0, 'no element came out of the name');
    await bobItem.getByRole('button', { name: `Reject ${bob}` }).click();
    await bobItem.getByText('rejected', { exact: true }).waitFor();
    const rejected = await call(`${api}/v1/pair/${other.body.pairing_id}`);
    assert.equal(rejected.body.state, 'rejected');
    assert.equal(rejected.body.token, undefined);
    await screenshot('pairings-answered');
  });

  it('allowlists a local receiver, restarts, approves a webhook and shows its delivery; denies another', async () => {
    const port = (receiver!.address() as AddressInfo).port;
    const target = `127.0.0.1:${port}`;
    const token = gateway!.startupToken;

    await page.getByRole('switch', { name: 'Webhook delivery' }).click();
    await textOf(status(), /Webhook delivery on/, 'the delivery switch status');
    await page.getByLabel('New target (host:port)').fill(target);
    await page.getByRole('button', { name: 'Add target' }).click();
    await page.getByRole('button', { name: `Remove target ${target}` }).waitFor();
    await textOf(page.getByRole('note'), /not yet in effect: local webhook targets\. Restart/, 'the restart notice');
    assert.deepEqual((await settingsNow()).local_webhook_targets, [target]);

    // Not yet: the allowlist is read at startup.
    const early = await call(`${api}/v1/webhooks`, {
      method: 'POST',
      bearer: token,
      body: { url: `http://${target}/early`, events: ['job.completed'] },
    });
    assert.equal(early.status, 400);
    await screenshot('target-added');

    await page.getByRole('button', { name: 'Restart the application' }).click();
    await textOf(status(), /The application restarted/, 'the restart status');
    assert.equal(await page.getByRole('note').isHidden(), true);

    const hookUrl = `http://${target}/hook`;
    const otherUrl = `http://${target}/other`;
    const hook = await call(`${api}/v1/webhooks`, { method: 'POST', bearer: token, body: { url: hookUrl, events: ['job.completed'] } });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
    const other = await call(`${api}/v1/webhooks`, { method: 'POST', bearer: token, body: { url: otherUrl, events: ['job.failed'] } });
    assert.equal(other.status, 201);

    await page.getByRole('button', { name: 'Refresh webhooks' }).click();
    const hookRow = page.getByRole('row', { name: new RegExp(hook.body.id as string) });
    await hookRow.getByText('pending', { exact: true }).waitFor();
    await hookRow.getByText('startup').waitFor(); // the owner, by token name
    await screenshot('webhooks-pending');
    await page.getByRole('button', { name: `Allow webhook ${hookUrl}` }).click();
    await hookRow.getByText('allowed', { exact: true }).waitFor();

    const sent = await call(`${api}/v1/webhooks/${hook.body.id}/test`, { method: 'POST', bearer: token });
    assert.equal(sent.status, 202);
    assert.equal(sent.body.approval_state, 'allowed');
    assert.equal(typeof sent.body.delivery_id, 'string');
    await eventually(
      'the receiver got the test delivery',
      async () => received.length,
      (n) => n >= 1,
    );
    assert.equal(received[0]?.path, '/hook');
    assert.match(String(received[0]?.headers['x-service-signature']), /^sha256=[0-9a-f]{64}$/);

    await page.getByRole('button', { name: `Show deliveries of ${hookUrl}` }).click();
    await page.getByRole('heading', { name: `Delivery log of ${hookUrl}` }).waitFor();
    const log = page.getByRole('table', { name: /Newest first/ });
    await eventually(
      'the delivery in the log',
      async () => {
        await page.getByRole('button', { name: 'Refresh delivery log' }).click();
        return (await log.locator('tbody').textContent()) ?? '';
      },
      (t) => /webhook\.test/.test(t) && /delivered/.test(t) && /200/.test(t),
    );
    await screenshot('webhook-delivered');

    await page.getByRole('button', { name: `Deny webhook ${otherUrl}` }).click();
    const otherRow = page.getByRole('row', { name: new RegExp(other.body.id as string) });
    await otherRow.getByText('denied', { exact: true }).waitFor();
    assert.equal(await otherRow.getByRole('button', { name: /Allow|Revoke/ }).count(), 0, 'nothing moves a webhook out of denied');
    const deniedTest = await call(`${api}/v1/webhooks/${other.body.id}/test`, { method: 'POST', bearer: token });
    assert.equal(deniedTest.body.approval_state, 'denied');
    await page.getByRole('button', { name: `Show deliveries of ${otherUrl}` }).click();
    await page.getByRole('heading', { name: `Delivery log of ${otherUrl}` }).waitFor();
    await textOf(log.locator('tbody'), /denied/, 'the denied entry');

    await page.getByRole('button', { name: `Revoke webhook ${hookUrl}` }).click();
    await hookRow.getByText('denied', { exact: true }).waitFor();
    const afterRevoke = await call(`${api}/v1/webhooks/${hook.body.id}/test`, { method: 'POST', bearer: token });
    assert.equal(afterRevoke.body.approval_state, 'denied');
    assert.equal(received.length, 1, 'nothing more reached the receiver');
    await screenshot('webhooks-answered');
  });

  it('cannot be driven from another origin, nor through a rebound name', async () => {
    const evil = await context!.newPage();
    try {
      await evil.route('http://evil.example/**', (route) =>
        route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>elsewhere</title><p>elsewhere</p>' }),
      );
      await evil.goto('http://evil.example/');
      const attempt = await evil.evaluate(
        async ({ url, secret }) => {
          const out: string[] = [];
          try {
            const r = await fetch(`${url}/control/settings`, {
              method: 'PATCH',
              headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' },
              body: '{"license":"none"}',
            });
            out.push(`patch answered ${r.status}`);
          } catch {
            out.push('patch refused');
          }
          try {
            await fetch(`${url}/control/reset`, { method: 'POST', mode: 'no-cors', body: '{}' });
            out.push('reset sent');
          } catch {
            out.push('reset refused');
          }
          out.push(`storage ${(globalThis as unknown as Win).sessionStorage.length}`);
          return out;
        },
        { url: control, secret: SECRET },
      );
      assert.equal(attempt[0], 'patch refused');
      assert.equal(attempt[2], 'storage 0');
      const now = await settingsNow();
      assert.equal(now.license, 'pro', 'the other origin changed nothing');
      assert.equal(now.webhooks_enabled, true, 'no reset happened');

      const port = new URL(control).port;
      const rebound = await evil.goto(`http://${REBOUND_NAME}:${port}/settings`);
      assert.equal(rebound?.status(), 400, 'a rebound name is refused by Host');
    } finally {
      await evil.close();
    }
  });

  it('signs out: the secret is forgotten and the data is gone from the page', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    assert.equal(await page.evaluate(() => (globalThis as unknown as Win).sessionStorage.length), 0);
    assert.equal(await page.locator('#tokens tbody tr').count(), 0);
    assert.equal(await page.locator('#app').isHidden(), true);
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    assert.deepEqual(browserProblems, []);
    assert.ok(
      dialogs.every((kind) => kind === 'confirm'),
      `dialogs: ${dialogs.join(', ')}`,
    );
    assert.deepEqual(
      gatewayLog.filter((line) => /failed|error/i.test(line)),
      [],
    );
  });
});
