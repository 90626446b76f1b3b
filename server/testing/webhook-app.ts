/**
 * Test harness for the webhook and pairing routes: the shared testGateway()
 * plus a Control API app on the same dependencies, and a restart that
 * rebuilds the dependencies on the same store the way gateway.ts does, so
 * startup-only settings (the Local webhook targets allowlist) are re-read.
 * Webhook delivery parts (resolver, transport, scheduler, limits) can be
 * replaced; every rebuild uses the same replacements.
 *
 * Imported by *.test.ts only.
 */
import type { Express } from 'express';
import { createApp } from '../app.ts';
import { createControlApp } from '../control/app.ts';
import { createDeps, type AppDeps } from '../deps.ts';
import type { WebhookDeliveryOverrides } from '../features/webhooks/service.ts';
import { simulatedDevices, testGateway, type TestGateway } from './gateway.ts';
import type { TokenKind, TokenOrigin } from '../kernel/store/tokens-repo.ts';
import type { Resolver } from '../features/webhooks/destination.ts';

const CONTROL_SECRET = 'control-secret-for-tests-0123456789';
export const CONTROL_AUTH = `Bearer ${CONTROL_SECRET}`;

export interface WebhookTestApp {
  gw: TestGateway;
  /** The current Automation API app and dependencies (replaced by restart). */
  app: Express;
  deps: AppDeps;
  control: Express;
  /** Mints a token and returns its `Authorization` header value. */
  bearer(scopes: readonly string[], opts?: { kind?: TokenKind; origin?: TokenOrigin }): string;
  /** Rebuilds dependencies and app on the same store: startup settings are read again, in-memory work dropped. */
  restart(): void;
  close(): void;
}

/** Resolves names from a table; any other name does not resolve. IP literals never get here. */
export function tableResolver(table: Record<string, readonly string[]>): Resolver {
  return async (host) => {
    const found = table[host];
    if (found === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

export function webhookTestApp(opts: { webhooks?: WebhookDeliveryOverrides; allowlist?: string[] } = {}): WebhookTestApp {
  const gw = testGateway();
  const overrides: WebhookDeliveryOverrides = { resolver: tableResolver({ 'hooks.example': ['93.184.216.34'] }), ...opts.webhooks };
  const harness: WebhookTestApp = {
    gw,
    app: gw.app,
    deps: gw.deps,
    control: createControlApp({ secret: CONTROL_SECRET, deps: () => harness.deps, restart: () => harness.restart() }),
    bearer(scopes, o = {}) {
      return `Bearer ${gw.token(scopes, o)}`;
    },
    restart() {
      harness.deps.shutdown();
      const deps = createDeps({
        db: gw.db,
        dataDir: gw.dataDir,
        validateResponses: true,
        pocketsphinxRoots: [],
        webhooks: overrides,
        makeDevices: () => simulatedDevices(),
        logError: (err) => gw.errors.push(err),
      });
      deps.start();
      harness.deps = deps;
      harness.app = createApp(deps);
    },
    close() {
      if (harness.deps !== gw.deps) harness.deps.shutdown();
      gw.close();
    },
  };
  if (opts.allowlist !== undefined) gw.deps.settings.update({ local_webhook_targets: opts.allowlist });
  // Start as the gateway would: from the stored settings, with these delivery parts.
  harness.restart();
  return harness;
}
