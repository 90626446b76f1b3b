/**
 * GET and PUT /v1/config/{section}.
 */
import type { HandlersFor } from '../../app.ts';

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
} satisfies HandlersFor<'getConfigSection' | 'replaceConfigSection'>;
