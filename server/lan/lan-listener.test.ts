/**
 * The HTTPS LAN listener with real TLS clients: its callers are remote, its
 * certificate is checked by pinning the SHA-256 fingerprint, plain HTTP is
 * not served on it. The gateway side (off by default, restart, loopback
 * stays plain HTTP) is in lan-gateway.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { authorize } from '../kernel/auth.ts';
import { HealthCounters } from '../kernel/health-counters.ts';
import { openDatabase } from '../kernel/store/database.ts';
import { RESET_SETTINGS, SettingsRepo } from '../kernel/store/settings-repo.ts';
import { TokensRepo } from '../kernel/store/tokens-repo.ts';
import { createLanServer } from './lan-listener.ts';
import { createSelfSignedCertificate } from './self-signed-cert.ts';
import { fails, httpGet, httpsGet } from '../testing/tls-client.ts';

test('every connection the LAN listener accepts is a remote caller; the same token on a plain listener is not', async () => {
  const db = openDatabase(':memory:');
  const settings = new SettingsRepo(db);
  settings.update(RESET_SETTINGS);
  const tokens = new TokensRepo(db);
  const token = tokens.create({ name: 't', scopes: ['read'], origin: 'loopback' }, new Date()).token;
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const caller = authorize(req, { scope: 'read' }, { settings: () => settings.get(), tokens, counters: new HealthCounters() });
    res.end(JSON.stringify({ remote: caller?.remote }));
  };
  const tls = createSelfSignedCertificate();
  const lan = createLanServer(tls, handle);
  const plain = createHttpServer(handle);
  await Promise.all([new Promise<void>((r) => lan.listen(0, '127.0.0.1', r)), new Promise<void>((r) => plain.listen(0, '127.0.0.1', r))]);
  try {
    const overLan = await httpsGet(`https://127.0.0.1:${(lan.address() as AddressInfo).port}/`, {
      bearer: token,
      fingerprint: tls.fingerprint256,
    });
    assert.deepEqual(JSON.parse(overLan.body), { remote: true });
    assert.equal(overLan.fingerprint256, tls.fingerprint256);
    assert.equal(overLan.authorized, false, 'self-signed: not trusted by a CA, only by the pin');
    const overLoopback = await httpGet(`http://127.0.0.1:${(plain.address() as AddressInfo).port}/`, token);
    assert.deepEqual(JSON.parse(overLoopback.body), { remote: false });

    // A client that pins another certificate refuses the connection.
    await fails(httpsGet(`https://127.0.0.1:${(lan.address() as AddressInfo).port}/`, { bearer: token, fingerprint: 'AA:BB' }));
    // Plain HTTP to the TLS port is not served.
    await fails(httpGet(`http://127.0.0.1:${(lan.address() as AddressInfo).port}/`, token));
  } finally {
    lan.closeAllConnections();
    plain.closeAllConnections();
    await Promise.all([new Promise((r) => lan.close(r)), new Promise((r) => plain.close(r))]);
    db.close();
  }
});
