/**
 * What a target's own /openapi.json says about a response: which operation a
 * request hit, whether the answer's status is one the operation declares, and
 * whether the body validates against the declared schema. OpenAPI 3.1 schemas
 * are JSON Schema 2020-12, so they are validated with Ajv's 2020-12 validator
 * (with the standard formats); `$ref`s into the document (components,
 * responses) resolve against the whole manifest.
 *
 * Used by openapi/manifest-exchanges, which applies it to every API exchange
 * of a run. Nothing here decides a verdict: it returns what disagrees.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { HTTP_METHODS } from './manifest.ts';

// ajv-formats is CommonJS: under Node's ESM loader its default export is the plugin function itself.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** The $id the manifest is registered under, so local `#/…` references can be made absolute. */
const MANIFEST_ID = 'urn:mas-conformance:manifest';

export interface ManifestOp {
  method: string;
  /** The path key of the manifest (without any server prefix), e.g. /v1/meetings/{id}. */
  template: string;
  operation: Record<string, unknown>;
  /** Matches a request path (relative to the base URL) to this template. */
  pattern: RegExp;
  /** Literal segments first: /v1/jobs/import wins over /v1/jobs/{id}. */
  literals: number;
}

export type StatusVerdict =
  | { kind: 'declared'; key: string }
  /** The operation declares responses, none for this status (no range, no default). */
  | { kind: 'undeclared'; declared: string[] }
  /** The operation declares no responses at all: a gap of the manifest, not of the target. */
  | { kind: 'no-responses' };

export type BodyVerdict =
  | { kind: 'valid' }
  | { kind: 'invalid'; errors: string[]; mediaType: string }
  /** The response's media type is not among the declared ones for this status. */
  | { kind: 'media-type'; mediaType: string; declared: string[] }
  /** Nothing to validate against (no content or no schema declared; a stream; an empty body). */
  | { kind: 'unchecked'; why: string };

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function templatePattern(template: string): { pattern: RegExp; literals: number } {
  const segments = template.split('/');
  let literals = 0;
  const parts = segments.map((seg) => {
    if (/^\{[^}]+\}$/.test(seg)) return '[^/]+';
    literals += 1;
    return escapeRegExp(seg).replace(/\\\{[^}]+\\\}/g, '[^/]+');
  });
  return { pattern: new RegExp(`^${parts.join('/')}/?$`), literals };
}

/** Rewrites local references (`#/components/...`) to absolute ones into the registered manifest. */
function absoluteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(absoluteRefs);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#') ? `${MANIFEST_ID}${v}` : absoluteRefs(v);
  }
  return out;
}

/** Media type without parameters, lower case. */
function bareMediaType(contentType: string | null | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

function isJsonMediaType(mt: string): boolean {
  return mt === 'application/json' || mt.endsWith('+json');
}

export class ManifestResponses {
  readonly doc: Record<string, unknown>;
  readonly ops: ManifestOp[];
  readonly #ajv: Ajv2020;
  readonly #validators = new Map<string, ValidateFunction | { error: string }>();

  constructor(doc: unknown) {
    this.doc = (doc ?? {}) as Record<string, unknown>;
    const paths = (this.doc.paths ?? {}) as Record<string, Record<string, unknown>>;
    this.ops = [];
    for (const [template, item] of Object.entries(paths)) {
      if (item === null || typeof item !== 'object') continue;
      for (const m of HTTP_METHODS) {
        const operation = item[m];
        if (operation === null || typeof operation !== 'object') continue;
        this.ops.push({ method: m.toUpperCase(), template, operation: operation as Record<string, unknown>, ...templatePattern(template) });
      }
    }
    this.ops.sort((a, b) => b.literals - a.literals);
    // strict off: OpenAPI adds keywords of its own (discriminator, example, xml, externalDocs) that JSON Schema does not know.
    this.#ajv = new Ajv2020({ strict: false, allErrors: true, logger: false, validateFormats: true });
    addFormats(this.#ajv);
    this.#ajv.addSchema({ ...(absoluteRefs(this.doc) as Record<string, unknown>), $id: MANIFEST_ID });
  }

  /** The operation a request hit: by method and path relative to the base URL; null when the manifest has none. */
  find(method: string, path: string): ManifestOp | null {
    const p = path.split('?')[0]!;
    return this.ops.find((o) => o.method === method.toUpperCase() && o.pattern.test(p)) ?? null;
  }

  /** Some operation has this path (with another method): the request hit a described route with a method it does not list. */
  hasPath(path: string): boolean {
    const p = path.split('?')[0]!;
    return this.ops.some((o) => o.pattern.test(p));
  }

  /** Follows a local `$ref` (a response object may be one); null when it does not resolve. */
  resolve(value: unknown): Record<string, unknown> | null {
    let v = value;
    for (let depth = 0; depth < 10; depth++) {
      if (v === null || typeof v !== 'object') return null;
      const ref = (v as { $ref?: unknown }).$ref;
      if (typeof ref !== 'string') return v as Record<string, unknown>;
      if (!ref.startsWith('#/')) return null;
      v = ref
        .slice(2)
        .split('/')
        .map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'))
        .reduce<unknown>(
          (node, key) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined),
          this.doc,
        );
    }
    return null;
  }

  /** The responses object of an operation, or null when it declares none. */
  responses(op: ManifestOp): Record<string, unknown> | null {
    const r = op.operation.responses;
    if (r === null || typeof r !== 'object' || Object.keys(r).length === 0) return null;
    return r as Record<string, unknown>;
  }

  /** Is the status declared: exactly, by its range (4XX), or by default? */
  status(op: ManifestOp, status: number): StatusVerdict {
    const responses = this.responses(op);
    if (responses === null) return { kind: 'no-responses' };
    const keys = Object.keys(responses);
    const exact = keys.find((k) => k === String(status));
    if (exact !== undefined) return { kind: 'declared', key: exact };
    const range = keys.find((k) => k.toUpperCase() === `${String(status)[0]}XX`);
    if (range !== undefined) return { kind: 'declared', key: range };
    if (keys.includes('default')) return { kind: 'declared', key: 'default' };
    return { kind: 'undeclared', declared: keys };
  }

  /** Validates a response body against the schema declared for its status key and media type. */
  body(op: ManifestOp, statusKey: string, contentType: string | null, text: string): BodyVerdict {
    const response = this.resolve(this.responses(op)?.[statusKey]);
    if (response === null) return { kind: 'unchecked', why: `the response ${statusKey} does not resolve` };
    const content = response.content as Record<string, { schema?: unknown }> | undefined;
    if (content === undefined || content === null || typeof content !== 'object' || Object.keys(content).length === 0) {
      return { kind: 'unchecked', why: `no content declared for ${statusKey}` };
    }
    if (text.length === 0) return { kind: 'unchecked', why: 'empty body' };
    const mt = bareMediaType(contentType);
    const declared = Object.keys(content);
    const key =
      declared.find((d) => bareMediaType(d) === mt) ??
      declared.find((d) => d.endsWith('/*') && mt.startsWith(d.slice(0, -1))) ??
      declared.find((d) => d === '*/*');
    if (key === undefined) return { kind: 'media-type', mediaType: mt || '(none)', declared };
    const schema = content[key]?.schema;
    if (schema === undefined || schema === null) return { kind: 'unchecked', why: `no schema declared for ${statusKey} ${key}` };
    if (!isJsonMediaType(mt)) return { kind: 'unchecked', why: `${mt} is not JSON` };
    let value: unknown;
    try {
      value = JSON.parse(text) as unknown;
    } catch (err) {
      return { kind: 'invalid', mediaType: mt, errors: [`the body is not JSON (${(err as Error).message})`] };
    }
    const validate = this.#validator(`${op.method} ${op.template} ${statusKey} ${key}`, schema);
    if ('error' in validate) return { kind: 'unchecked', why: `the declared schema does not compile: ${validate.error}` };
    if (validate(value)) return { kind: 'valid' };
    const errors = (validate.errors ?? [])
      .slice(0, 5)
      .map(
        (e) =>
          `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}${e.params !== undefined && Object.keys(e.params).length > 0 ? ` ${JSON.stringify(e.params)}` : ''}`,
      );
    return { kind: 'invalid', mediaType: mt, errors };
  }

  #validator(key: string, schema: unknown): ValidateFunction | { error: string } {
    let v = this.#validators.get(key);
    if (v === undefined) {
      try {
        v = this.#ajv.compile(absoluteRefs(schema) as object);
      } catch (err) {
        v = { error: (err as Error).message };
      }
      this.#validators.set(key, v);
    }
    return v;
  }

  /** Operations whose success responses declare no schema (streams aside): gaps of the manifest. */
  gaps(): Array<{ op: ManifestOp; why: string }> {
    const out: Array<{ op: ManifestOp; why: string }> = [];
    for (const op of this.ops) {
      const responses = this.responses(op);
      if (responses === null) {
        out.push({ op, why: 'no responses declared' });
        continue;
      }
      const success = Object.keys(responses).filter((k) => /^2(\d\d|XX)$/i.test(k));
      if (success.length === 0) {
        out.push({ op, why: 'no success response declared' });
        continue;
      }
      for (const k of success) {
        if (k === '204') continue;
        const content = this.resolve(responses[k])?.content as Record<string, { schema?: unknown }> | undefined;
        if (content === undefined || Object.keys(content).length === 0) out.push({ op, why: `${k} declares no content` });
        else
          for (const [mt, c] of Object.entries(content))
            if (mt !== 'text/event-stream' && (c?.schema === undefined || c.schema === null))
              out.push({ op, why: `${k} ${mt} declares no schema` });
      }
    }
    return out;
  }
}
