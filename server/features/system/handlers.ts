/**
 * Health, identity, the OpenAPI manifest, devices and models.
 */
import type { HandlersFor } from '../../app.ts';
import { buildOpenApiDocument } from './openapi.ts';

/** The manifest depends only on the build, so it is made once per process. */
let manifest: Record<string, unknown> | null = null;

export const systemHandlers = {
  getHealth: ({ deps }) => ({
    status: 200,
    json: {
      status: 'ok',
      version: deps.version,
      webhooks: { events_dropped: deps.counters.eventsDropped, deliveries_failed: deps.counters.deliveriesFailed },
      license: { fail_open_total: deps.counters.failOpenTotal },
    },
  }),

  getWhoami: ({ caller, deps }) => {
    // The router authenticated the caller (scope read), so a token is present.
    const token = caller.token;
    const license = deps.settings.get().license;
    return {
      status: 200,
      json: {
        token_id: token.id,
        scopes: token.scopes,
        license_tier: license === 'unverifiable' ? 'unverifiable' : 'pro',
        server_version: deps.version,
        origin: token.origin,
        kind: token.kind,
      },
    };
  },

  getOpenApi: ({ deps }) => {
    manifest ??= buildOpenApiDocument({ version: deps.version });
    return { status: 200, json: manifest };
  },

  listDevices: ({ deps }) => ({ status: 200, json: { devices: deps.devices.list() } }),

  listModels: ({ deps }) => ({ status: 200, json: { models: deps.models.list() } }),
} satisfies HandlersFor<'getHealth' | 'getWhoami' | 'getOpenApi' | 'listDevices' | 'listModels'>;
