/**
 * GET and PUT /v1/config/{section}.
 */
import type { HandlersFor } from '../../http-types.ts';
import type { SettingsRepo } from '../../kernel/store/settings-repo.ts';
import type { ConfigService } from './service.ts';

/** The services the config routes use, and nothing else (built by server/deps.ts). */
export interface ConfigDeps {
  config: ConfigService;
  /** Arming auto-record needs remote recording pre-armed. */
  settings: Pick<SettingsRepo, 'get'>;
}

export const configHandlers = {
  getConfigSection: ({ params, deps }) => {
    const section = deps.config.section(params.section);
    return { status: 200, json: deps.config.get(section) };
  },

  replaceConfigSection: ({ params, body, caller, deps }) => {
    const section = deps.config.section(params.section);
    const view = deps.config.replace(section, body, { scopes: caller.token.scopes }, deps.settings.get().remote_recording_prearmed);
    return { status: 200, json: view };
  },
} satisfies HandlersFor<'getConfigSection' | 'replaceConfigSection', ConfigDeps>;
