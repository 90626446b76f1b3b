import { defineCheck } from '../../harness/check.ts';
import { publicWebhookUrl } from '../../harness/webhooks.ts';
import type { CheckContext } from '../../harness/context.ts';
import type { AuditedExchange } from '../../harness/exchange-audit.ts';
import * as x from '../../harness/expect.ts';
import { fetchManifest } from '../../harness/manifest.ts';
import { ManifestResponses } from '../../harness/openapi-responses.ts';

/** What a deleted resource's id reaches: the clause its staying gone serves. */
const RESOURCES = [
  { prefix: '/v1/meetings/', clause: 'meetings.delete.irreversible', sub: 'meetings.delete.cascade' },
  { prefix: '/v1/webhooks/', clause: 'webhooks.delete.owned', sub: 'webhooks.delete.owned' },
] as const;

/** Every GET operation of the manifest under `/v1/<resource>/{id}`, with the id (and any other parameter) filled in. */
function readRoutes(
  manifest: ManifestResponses,
  prefix: string,
  id: string,
  fill: Record<string, string>,
): Array<{ template: string; path: string } | { template: string; missing: string }> {
  return manifest.ops
    .filter((o) => o.method === 'GET' && o.template.startsWith(`${prefix}{`))
    .map((o) => {
      let missing = '';
      const path = o.template.replace(/\{([^}]+)\}/g, (_, name: string, offset: number) => {
        if (offset === prefix.length) return encodeURIComponent(id);
        const v = fill[name];
        if (v === undefined) missing = name;
        return encodeURIComponent(v ?? '');
      });
      return missing === '' ? { template: o.template, path } : { template: o.template, missing };
    });
}

/** Reads every route of a deleted resource: each must answer 404 (a stream route must not open a stream). */
async function readAfterDelete(
  ctx: CheckContext,
  token: string,
  manifest: ManifestResponses,
  prefix: string,
  id: string,
  fill: Record<string, string>,
  clause: string,
  sub: string,
): Promise<void> {
  for (const r of readRoutes(manifest, prefix, id, fill)) {
    if ('missing' in r) {
      ctx.note(`GET ${r.template} after the delete: not read (no value for {${r.missing}})`);
      continue;
    }
    const res = await ctx.as(token).get(r.path, { readBodyMs: 2000, timeoutMs: 10_000, label: `after the delete: GET ${r.template}` });
    ctx.expect(
      r.template === `${prefix}{id}` ? clause : sub,
      `GET ${r.template} of the deleted resource (a read route of the manifest)`,
      x.error(res, 404),
      res,
    );
  }
}

export const check = defineCheck({
  id: 'openapi/manifest-deleted-stays-gone',
  clauses: ['meetings.delete.irreversible', 'meetings.delete.cascade', 'webhooks.delete.owned'],
  level: 'requirement',
  needs: ['token', 'meeting'],
  order: 'last',
  timeoutMs: 180_000,
  description:
    'Deletes a meeting (after starting a summary regeneration, so an operation id exists) and a ' +
    "webhook of its own, then reads every GET route the target's manifest lists under " +
    '/v1/meetings/{id} and /v1/webhooks/{id} with the deleted id: each must answer 404, and the ' +
    'lists must not show them; then audits the whole run: after any check deleted a meeting or ' +
    'webhook, no later read of it in that check may succeed.',
  requirement: 'DELETE /v1/meetings/{id} removes the meeting permanently, after which it is not found.',
  async run(ctx) {
    const token = await ctx.token(['read', 'write', 'delete']);
    const api = ctx.as(token);
    const doc = await fetchManifest(ctx, token);
    if (doc === null) return ctx.skip('GET /openapi.json did not answer a JSON document: there are no read routes to enumerate');
    const manifest = new ManifestResponses(doc);

    // 1. A meeting: delete it, then every read route of the manifest.
    const m = await ctx.fixtures.meeting();
    const regen = await api.post(`/v1/meetings/${m.id}/summary/regenerate`, { json: {} });
    const operationId = (regen.body as { operation_id?: unknown } | undefined)?.operation_id;
    if (typeof operationId === 'string') {
      // Let the regeneration end first: what a delete does to a meeting whose summary is being generated is not shown.
      const until = Date.now() + 30_000;
      for (;;) {
        const st = await api.get(`/v1/meetings/${m.id}/summary/operations/${encodeURIComponent(operationId)}`, {
          label: 'wait for the regeneration to end',
        });
        const body = st.body as { state?: unknown; status?: unknown } | undefined;
        const state = `${JSON.stringify(body?.state ?? '')} ${JSON.stringify(body?.status ?? '')}`;
        if (st.status !== 200 || !/queued|running|pending|generating|started/i.test(state) || Date.now() > until) break;
        await ctx.sleep(300);
      }
    }
    const del = await api.delete(`/v1/meetings/${m.id}`);
    ctx.require('meetings.delete.irreversible', `DELETE /v1/meetings/${m.id}`, x.success(del), del);
    await readAfterDelete(
      ctx,
      token,
      manifest,
      '/v1/meetings/',
      m.id,
      typeof operationId === 'string' ? { operation_id: operationId } : {},
      'meetings.delete.irreversible',
      'meetings.delete.cascade',
    );
    const list = await api.get('/v1/meetings', { query: { limit: 200 } });
    ctx.expect(
      'meetings.delete.irreversible',
      'GET /v1/meetings after the delete',
      x.that(list.status === 200 && !list.text.includes(m.id), `200 without ${m.id}`, list.describe(200)),
      list,
    );

    // 2. A webhook of its own (registration is part of the API); a target with webhooks off cannot have one.
    const reg = await api.post('/v1/webhooks', {
      json: { url: publicWebhookUrl(ctx), events: ['job.completed'] },
    });
    const hookId = (reg.body as { id?: unknown } | undefined)?.id;
    if (reg.status !== 201 || typeof hookId !== 'string')
      ctx.note(`POST /v1/webhooks answered ${reg.describe(150)}: the webhook part was not done`);
    else {
      const delHook = await api.delete(`/v1/webhooks/${hookId}`);
      ctx.require('webhooks.delete.owned', `DELETE /v1/webhooks/${hookId}`, x.success(delHook), delHook);
      await readAfterDelete(ctx, token, manifest, '/v1/webhooks/', hookId, {}, 'webhooks.delete.owned', 'webhooks.delete.owned');
      const hooks = await api.get('/v1/webhooks');
      ctx.expect(
        'webhooks.delete.owned',
        'GET /v1/webhooks after the delete',
        x.that(hooks.status === 200 && !hooks.text.includes(hookId), `200 without ${hookId}`, hooks.describe(200)),
        hooks,
      );
    }

    // 3. The run: within each check, a successful delete ends every later successful read of that resource.
    const audit = ctx.env.exchangeAudit;
    if (audit === undefined) return;
    const byCheck = new Map<string, AuditedExchange[]>();
    for (const e of audit.entries) if (e.checkId !== ctx.check.id) byCheck.set(e.checkId, [...(byCheck.get(e.checkId) ?? []), e]);
    let deletes = 0;
    for (const [checkId, entries] of byCheck) {
      const gone = new Map<string, { clause: string; sub: string }>();
      for (const e of entries) {
        const resource = RESOURCES.find((r) => e.path.startsWith(r.prefix));
        if (resource === undefined) continue;
        const base = e.path.split('/').slice(0, 4).join('/'); // /v1/<resource>/<id>
        if (e.method === 'DELETE' && e.path === base && e.status >= 200 && e.status < 300) {
          gone.set(base, resource);
          deletes += 1;
          continue;
        }
        const deleted = gone.get(base);
        if (e.method !== 'GET' || deleted === undefined || e.status < 200 || e.status >= 300) continue;
        const { seq: _seq, ...copy } = e.exchange;
        const exchange = ctx.sink({ ...copy, label: `${checkId} #${e.exchange.seq}: a read after that check deleted ${base}` });
        ctx.expect(
          e.path === base ? deleted.clause : deleted.sub,
          `GET ${e.path} after ${checkId} deleted ${base}`,
          { ok: false, expected: ['404: the resource was deleted earlier in the same check'], actual: `${e.status}` },
          exchange,
        );
      }
    }
    ctx.note(`the run's other checks deleted ${deletes} meetings or webhooks; their later reads were audited`);
  },
});
