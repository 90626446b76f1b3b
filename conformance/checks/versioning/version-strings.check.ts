import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';

export const check = defineCheck({
  id: 'versioning/version-strings',
  clauses: ['versioning.version-strings'],
  level: 'requirement',
  touches: 'own',
  needs: ['token'],
  description: 'GET /health has a version string and GET /v1/whoami a server_version string.',
  requirement: 'GET /health reports the service version as a string and GET /v1/whoami reports it as server_version.',
  async run(ctx) {
    const health = await ctx.api.get('/health');
    const version = (health.body as { version?: unknown } | undefined)?.version;
    ctx.expect(
      'versioning.version-strings',
      'GET /health: version',
      x.that(typeof version === 'string' && version.length > 0, 'version: a non-empty string', `version = ${x.show(version)}`),
      health,
    );
    const who = await ctx.as(await ctx.token(['read'])).get('/v1/whoami');
    const sv = (who.body as { server_version?: unknown } | undefined)?.server_version;
    ctx.expect(
      'versioning.version-strings',
      'GET /v1/whoami: server_version',
      x.that(typeof sv === 'string' && sv.length > 0, 'server_version: a non-empty string', `${who.status} server_version = ${x.show(sv)}`),
      who,
    );
    if (typeof version === 'string' && typeof sv === 'string' && version !== sv)
      ctx.note(`health.version "${version}" differs from whoami.server_version "${sv}"`);
  },
});
