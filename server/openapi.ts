/**
 * GET /openapi.json: the OpenAPI 3.1 manifest, generated from the operations
 * table and the zod DTOs, so it always describes the routes really served.
 *
 * Every operation carries the four annotations of API.md's Versioning section:
 * x-service-read-only, x-service-idempotent, x-service-destructive and
 * x-service-required-scope. Error responses come from the error registry:
 * which ones an operation can give follows from its row (a token → 401 and
 * 403; a path parameter → 404; a body or query → 400/422; the gates → 402/403).
 */
import { z } from 'zod';
import { ERROR_CODES, SUB_CODES, type AnyErrorCode } from './errors.ts';
import { OPERATIONS, type Operation } from './operations.ts';
import { ErrorEnvelopeSchema } from './schemas/common.ts';

const COMPONENT_PREFIX = '#/components/schemas/';

type JsonSchema = Record<string, unknown>;

/** Errors particular to one operation, beyond what its row implies. */
const EXTRA_ERRORS: Record<string, readonly AnyErrorCode[]> = {
  searchMeetings: ['bad_request'],
  replaceConfigSection: ['not_prearmed'],
  importAudio: ['bad_request', 'payload_too_large', 'import_budget_full', 'service_unavailable'],
  submitDiarization: ['engine_busy'],
  pauseJob: ['import_not_pausable', 'engine_busy'],
  resumeJob: ['import_not_pausable', 'engine_busy'],
  retryJob: ['not_retryable', 'not_terminal', 'source_gone'],
  regenerateSummary: ['summary_generating'],
  createWebhook: ['bad_request', 'forbidden'],
  listWebhooks: ['forbidden'],
  getWebhook: ['forbidden'],
  deleteWebhook: ['forbidden'],
  listWebhookDeliveries: ['forbidden'],
  testWebhook: ['forbidden'],
  requestPairing: ['too_many_requests'],
  startRecording: ['bad_request', 'not_prearmed', 'recording_in_progress', 'service_unavailable'],
  stopRecording: ['recording_active'],
  pauseRecording: ['recording_active'],
  resumeRecording: ['recording_active'],
  waitRecording: ['invalid_request'],
};

/** The error codes each kind of operation can answer with, by status. */
function errorCodesOf(op: Operation): Map<number, AnyErrorCode[]> {
  const codes: AnyErrorCode[] = [];
  if (op.ungated !== true) codes.push('api_disabled', 'license_required');
  if (op.scope !== 'none') codes.push('unauthorized', 'consumer_disabled', 'insufficient_scope');
  if (op.pathParams !== undefined) codes.push('not_found');
  if (op.query !== undefined) codes.push('invalid_request');
  if (op.body !== undefined) codes.push('bad_request', 'invalid_request', 'payload_too_large');
  for (const code of EXTRA_ERRORS[op.operationId] ?? []) codes.push(code);
  codes.push('internal');
  const byStatus = new Map<number, AnyErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = code in ERROR_CODES ? ERROR_CODES[code as keyof typeof ERROR_CODES].status : ERROR_CODES[SUB_CODES[code as keyof typeof SUB_CODES]].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return byStatus;
}

/**
 * Converts one zod schema to JSON Schema 2020-12, with every named DTO
 * lifted into components/schemas and referenced from there.
 */
class SchemaCollector {
  readonly components: Record<string, JsonSchema> = {};

  ref(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const converted = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io,
      unrepresentable: 'any',
      reused: 'inline',
      override: ({ jsonSchema }) => {
        delete (jsonSchema as JsonSchema)['$schema'];
      },
    }) as JsonSchema;
    const defs = (converted['$defs'] ?? {}) as Record<string, JsonSchema>;
    delete converted['$defs'];
    for (const [id, def] of Object.entries(defs)) this.components[id] = rewriteRefs(def) as JsonSchema;
    delete converted['$schema'];
    const root = rewriteRefs(converted) as JsonSchema;
    const id = z.globalRegistry.get(schema)?.id;
    if (id !== undefined) {
      if (root['$ref'] === undefined) this.components[id] = root;
      return { $ref: `${COMPONENT_PREFIX}${id}` };
    }
    return root;
  }
}

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = k === '$ref' && typeof v === 'string' ? v.replace('#/$defs/', COMPONENT_PREFIX) : rewriteRefs(v);
    }
    return out;
  }
  return value;
}

export function buildOpenApiDocument(opts: { version: string; serverUrl?: string }): JsonSchema {
  const schemas = new SchemaCollector();
  const errorRef = schemas.ref(ErrorEnvelopeSchema, 'output');
  const paths: Record<string, Record<string, unknown>> = {};

  for (const op of OPERATIONS as readonly Operation[]) {
    const parameters: JsonSchema[] = [];
    for (const [name, p] of Object.entries(op.pathParams ?? {})) {
      parameters.push({
        name,
        in: 'path',
        required: true,
        description: p.description,
        schema: p.enum !== undefined ? { type: 'string', enum: [...p.enum] } : { type: 'string' },
      });
    }
    for (const [name, q] of Object.entries(op.query ?? {})) {
      parameters.push({ name, in: 'query', required: q.required, description: q.description, schema: q.schema });
    }

    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(op.responses)) {
      const content: Record<string, unknown> = {};
      if (r.schema !== undefined) content['application/json'] = { schema: schemas.ref(r.schema, 'output') };
      else if (op.operationId === 'getOpenApi') content['application/json'] = { schema: { type: 'object' } };
      for (const type of r.contentTypes ?? []) content[type] = { schema: { type: 'string' } };
      responses[status] = Object.keys(content).length > 0 ? { description: r.description, content } : { description: r.description };
    }
    for (const [status, codes] of errorCodesOf(op)) {
      responses[String(status)] = {
        description: `error: ${codes.join(', ')}`,
        content: { 'application/json': { schema: errorRef } },
      };
    }

    const operation: Record<string, unknown> = {
      operationId: op.operationId,
      summary: op.summary,
      tags: [op.tag],
      security: op.scope === 'none' ? [] : [{ bearer: [] }],
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(op.rawBody !== undefined
        ? { requestBody: { required: true, description: op.rawBody.description, content: { [op.rawBody.contentType]: { schema: { type: 'string', contentMediaType: op.rawBody.contentType } } } } }
        : {}),
      ...(op.body !== undefined
        ? {
            requestBody: {
              required: op.body.required,
              content: { 'application/json': { schema: schemas.ref(op.body.schema, 'input') } },
            },
          }
        : {}),
      responses,
      'x-service-read-only': op.readOnly,
      'x-service-idempotent': op.idempotent,
      'x-service-destructive': op.destructive,
      'x-service-required-scope': op.scope,
    };
    paths[op.path] = { ...(paths[op.path] ?? {}), [op.method]: operation };
  }

  return {
    openapi: '3.1.1',
    info: {
      title: 'Meeting Automation Service',
      version: opts.version,
      description:
        'Local HTTP gateway of a desktop meeting recorder. Every error has the body {"error": {"code", "message"}}; ' +
        'x-service-required-scope names the minimum scope (record and write also satisfy read; delete implies neither).',
    },
    ...(opts.serverUrl !== undefined ? { servers: [{ url: opts.serverUrl }] } : {}),
    paths,
    components: {
      schemas: schemas.components,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'an API token' } },
    },
  };
}
