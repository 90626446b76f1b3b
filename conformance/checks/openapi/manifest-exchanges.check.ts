import { defineCheck } from '../../harness/check.ts';
import type { Exchange } from '../../harness/exchange.ts';
import type { AuditedExchange } from '../../harness/exchange-audit.ts';
import type * as x from '../../harness/expect.ts';
import { fetchManifest } from '../../harness/manifest.ts';
import { ManifestResponses } from '../../harness/openapi-responses.ts';
import type { ManifestOp } from '../../harness/openapi-responses.ts';

/** Failures of one kind (same operation, status and first error) reported in full; the rest are counted in the first. */
const SHOWN_PER_KIND = 3;

/**
 * Reads the routes a reader may call without changing anything, so the
 * audit has answers of its own even when the run selected few checks.
 */
const SWEEP: ReadonlyArray<readonly [string, Record<string, string>?]> = [
  ['/health'],
  ['/v1/whoami'],
  ['/v1/meetings', { limit: '2' }],
  ['/v1/meetings/00000000-0000-4000-8000-000000000000'],
  ['/v1/jobs'],
  ['/v1/jobs/00000000-0000-4000-8000-000000000000'],
  ['/v1/webhooks'],
  ['/v1/models'],
  ['/v1/devices'],
  ['/v1/recording'],
  ['/v1/config/vad'],
  ['/v1/search', { q: 'budget', limit: '2' }],
  ['/v1/search'],
];

export const check = defineCheck({
  id: 'openapi/manifest-exchanges',
  clauses: ['openapi.canonical'],
  level: 'requirement',
  needs: ['token'],
  order: 'last',
  timeoutMs: 120_000,
  description:
    "Holds every API answer of the run (every check's exchanges, deliberately malformed " +
    "requests too, plus a sweep of the read routes) to the target's own /openapi.json: the " +
    'status must be one the operation declares (exactly, by range or by default) and a JSON ' +
    'body must validate against the declared schema (JSON Schema 2020-12, Ajv); operations ' +
    'without response schemas are recorded as gaps of the manifest.',
  requirement:
    'The manifest is the canonical route description and wins over prose, so the enforced ' +
    "behaviour (e.g. minimum scope per operation) must agree with the manifest's own " +
    'annotations.',
  async run(ctx) {
    const token = await ctx.token(['read']);
    const doc = await fetchManifest(ctx, token);
    if (doc === null) return ctx.skip('GET /openapi.json did not answer a JSON document: there is no manifest to hold the answers to');
    const manifest = new ManifestResponses(doc);
    const api = ctx.as(token);
    for (const [path, query] of SWEEP)
      await api.get(path, { label: 'manifest audit: a read route', ...(query === undefined ? {} : { query }) });

    for (const gap of manifest.gaps()) {
      ctx.observe(
        'openapi.canonical',
        `the manifest's ${gap.op.method} ${gap.op.template}`,
        `${gap.why}: answers of this operation can be held to their status only`,
      );
    }

    const audit = ctx.env.exchangeAudit;
    if (audit === undefined) return ctx.skip('the harness kept no exchanges of the run to audit');
    if (audit.omitted > 0) ctx.note(`${audit.omitted} answers beyond the first ${audit.entries.length} were not kept and are not audited`);

    const kinds = new Map<
      string,
      { count: number; shown: number; first: { what: string; verdict: x.Verdict; exchange: Exchange } | null }
    >();
    const grade = (kind: string, e: AuditedExchange, what: string, verdict: x.Verdict): void => {
      let k = kinds.get(kind);
      if (k === undefined) {
        k = { count: 0, shown: 0, first: null };
        kinds.set(kind, k);
      }
      k.count += 1;
      if (k.shown >= SHOWN_PER_KIND) return;
      k.shown += 1;
      // The answer was made by another check: copy its record here so the failure shows it with its curl line.
      const { seq: _seq, ...copy } = e.exchange;
      const exchange = ctx.sink({ ...copy, label: `${e.checkId} #${e.exchange.seq}${copy.label === undefined ? '' : `: ${copy.label}`}` });
      ctx.expect('openapi.canonical', `${what} (made by ${e.checkId})`, verdict, exchange);
    };

    let audited = 0;
    let validated = 0;
    const undescribed = new Set<string>();
    const skipped = new Map<string, string>();
    // The entries grow while this check runs (its own requests are audited too): take them as they are now.
    for (const e of [...audit.entries]) {
      const op: ManifestOp | null = manifest.find(e.method, e.path);
      if (op === null) {
        if (manifest.hasPath(e.path)) undescribed.add(`${e.method} ${e.path}`);
        continue;
      }
      audited += 1;
      const name = `${op.method} ${op.template}`;
      const status = manifest.status(op, e.status);
      if (status.kind === 'no-responses') continue; // a gap of the manifest, observed above
      if (status.kind === 'undeclared') {
        grade(`status ${name} ${e.status}`, e, `${e.method} ${e.path} answered ${e.status}`, {
          ok: false,
          expected: [`a status the manifest declares for ${name}: ${status.declared.join(', ')}`],
          actual: `${e.status}: ${e.exchange.response?.body.slice(0, 200) ?? ''}`,
        });
        continue;
      }
      if (e.text === null) {
        skipped.set(name, 'a body too large to keep');
        continue;
      }
      const body = manifest.body(op, status.key, e.contentType, e.text);
      if (body.kind === 'valid') validated += 1;
      else if (body.kind === 'unchecked') skipped.set(`${name} ${status.key}`, body.why);
      else if (body.kind === 'media-type') {
        grade(`media ${name} ${status.key} ${body.mediaType}`, e, `${e.method} ${e.path} answered ${e.status} as ${body.mediaType}`, {
          ok: false,
          expected: [`a media type the manifest declares for ${name} ${status.key}: ${body.declared.join(', ')}`],
          actual: `Content-Type ${e.contentType ?? '(none)'}`,
        });
      } else {
        grade(`schema ${name} ${status.key} ${body.errors[0] ?? ''}`, e, `the ${e.status} body of ${e.method} ${e.path}`, {
          ok: false,
          expected: [`a body valid against the schema the manifest declares for ${name} ${status.key} (${body.mediaType})`],
          actual: `${body.errors.join('; ')} in ${(e.exchange.response?.body ?? '').slice(0, 200)}`,
        });
      }
    }
    for (const [kind, k] of kinds)
      if (k.count > k.shown) ctx.note(`${k.count - k.shown} more answers like the ones above (${kind}) are not shown`);
    if (undescribed.size > 0)
      ctx.note(
        `requests with a method the manifest does not list for a described path (not held to it): ${[...undescribed].slice(0, 10).join(', ')}${undescribed.size > 10 ? ', …' : ''}`,
      );
    for (const [what, why] of [...skipped].slice(0, 20)) ctx.note(`${what}: status checked, body not validated (${why})`);
    ctx.note(
      `${audited} answers of ${new Set(audit.entries.map((e) => e.checkId)).size} checks held to the manifest; ${validated} bodies validated against a declared schema`,
    );
  },
});
