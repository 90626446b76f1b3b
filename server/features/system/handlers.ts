/**
 * Health, identity, the OpenAPI manifest, devices and models.
 */
import type { DeviceCatalog } from '../../adapters/devices.ts';
import type { ModelCatalog } from '../../adapters/models.ts';
import type { HealthCounters } from '../../kernel/health-counters.ts';
import type { SettingsRepo } from '../../kernel/store/settings-repo.ts';
import type { HandlersFor } from '../../http-types.ts';
import { buildOpenApiDocument } from './openapi.ts';

/** The services the system routes use, and nothing else (built by server/deps.ts). */
export interface SystemDeps {
  version: string;
  counters: Pick<HealthCounters, 'eventsDropped' | 'deliveriesFailed' | 'failOpenTotal'>;
  /** whoami reads the license. */
  settings: Pick<SettingsRepo, 'get'>;
  devices: Pick<DeviceCatalog, 'list'>;
  models: Pick<ModelCatalog, 'list'>;
}

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
} satisfies HandlersFor<'getHealth' | 'getWhoami' | 'getOpenApi' | 'listDevices' | 'listModels', SystemDeps>;
