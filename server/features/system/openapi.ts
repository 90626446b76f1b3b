/**
 * GET /openapi.json: the OpenAPI 3.1 manifest, generated from the operations
 * table and the zod DTOs, so it always describes the routes really served.
 *
 * Every operation carries the four annotations of API.md's Versioning section:
 * x-service-read-only, x-service-idempotent, x-service-destructive and
 * x-service-required-scope. Error responses come from the error registry:
 * which ones an operation can give follows from its row (a token → 401 and
 * 403; a path parameter → 404; a body or query → 400/422; the gates → 402/403),
 * and each error response names its codes in an `enum` on error.code so that
 * generated clients can match them.
 *
 * The prose (tags, descriptions, wait-stream events, webhook deliveries) lives
 * in openapi-descriptions.ts. docs/openapi.json is this document committed;
 * client/openapi.test.ts fails when the two drift apart.
 */
import { z } from 'zod';
import { ERROR_CODES, SUB_CODES, type AnyErrorCode } from '../../kernel/errors.ts';
import { OPERATIONS, type Operation, type OperationId } from '../../operations.ts';
import { ErrorEnvelopeSchema } from '../../kernel/common-schemas.ts';
import { EVENT_DESCRIPTIONS, OPERATION_DESCRIPTIONS, SIGNATURE_RECIPE, TAGS, WAIT_EVENTS, scopeNote } from './openapi-descriptions.ts';
import { SIGNATURE_HEADER, SUBSCRIBABLE_EVENTS, TIMESTAMP_HEADER } from '../webhooks/index.ts';

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
    const status =
      code in ERROR_CODES
        ? ERROR_CODES[code as keyof typeof ERROR_CODES].status
        : ERROR_CODES[SUB_CODES[code as keyof typeof SUB_CODES]].status;
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

/** One error response: the envelope, with error.code narrowed to the codes this operation can give at this status. */
function errorResponse(codes: readonly AnyErrorCode[], errorRef: JsonSchema): JsonSchema {
  const explained = codes.map((code) => (code in SUB_CODES ? `${code} (a ${SUB_CODES[code as keyof typeof SUB_CODES]} sub-code)` : code));
  return {
    description: `error: ${explained.join(', ')}`,
    content: {
      'application/json': {
        schema: {
          allOf: [
            errorRef,
            {
              type: 'object',
              properties: {
                error: {
                  type: 'object',
                  properties: { code: { type: 'string', enum: [...codes], description: 'match the sub-code where one applies' } },
                },
              },
            },
          ],
        },
      },
    },
  };
}

/** The 200 of a wait route: one text/event-stream event, its name and data described. */
function waitResponse(wait: { events: Record<string, string>; timeoutData: string }): JsonSchema {
  const names = Object.keys(wait.events);
  const lines = Object.entries(wait.events).map(([event, dto]) => `event: ${event}, data: ${dto} as one line of JSON`);
  return {
    description:
      `text/event-stream with exactly one event, then the stream closes. ${lines.join('; ')}; ` +
      `or event: timeout, data: ${wait.timeoutData}. Lines starting with a colon are keep-alive comments.`,
    content: {
      'text/event-stream': {
        schema: {
          type: 'string',
          description: `one Server-Sent-Events event: ${[...names, 'timeout'].join(', ')}`,
          'x-service-sse-events': {
            ...Object.fromEntries(Object.entries(wait.events).map(([event, dto]) => [event, { $ref: `${COMPONENT_PREFIX}${dto}` }])),
            timeout: { type: 'object', description: `data of the timeout event: ${wait.timeoutData}` },
          },
        },
        example: `: waiting\n\nevent: ${names[0]!}\ndata: {…}\n\n`,
      },
    },
  };
}

/** The envelope every webhook delivery carries (API.md, Events; server/features/webhooks/dispatcher.ts). */
const WEBHOOK_ENVELOPE: JsonSchema = {
  type: 'object',
  description: 'The body of every webhook delivery. Events never carry transcript or summary content.',
  required: ['schema_version', 'event_id', 'event', 'occurred_at', 'resource', 'delivery_id'],
  properties: {
    schema_version: { type: 'integer', description: 'version of this envelope; 1' },
    event_id: { type: 'string', description: 'unique id of the event: the idempotency key; a repeated event_id is a duplicate' },
    event: { type: 'string', description: 'the event name' },
    occurred_at: { type: 'string', format: 'date-time', description: 'when the event happened' },
    resource: {
      type: 'object',
      required: ['kind', 'id'],
      properties: {
        kind: { type: 'string', enum: ['job', 'meeting', 'recording', 'webhook'] },
        id: { type: 'string' },
      },
    },
    delivery_id: { type: 'string', description: 'the same on every attempt of one delivery' },
    operation_id: { type: 'string', description: 'present for a summary regeneration started through the API' },
  },
};

/** camelCase operationId of a delivery: job.completed → jobCompletedDelivery. */
function deliveryOperationId(event: string): string {
  const words = event.split(/[._]/);
  return `${words.map((w, i) => (i === 0 ? w : w[0]!.toUpperCase() + w.slice(1))).join('')}Delivery`;
}

/** The top-level webhooks section: one POST per event a receiver can get. */
function webhooksSection(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const event of [...SUBSCRIBABLE_EVENTS, 'webhook.test'] as const) {
    out[event] = {
      post: {
        operationId: deliveryOperationId(event),
        summary: `${event} delivery`,
        description: `${EVENT_DESCRIPTIONS[event] ?? ''} ${SIGNATURE_RECIPE}`,
        tags: ['deliveries'],
        security: [],
        parameters: [
          {
            name: SIGNATURE_HEADER,
            in: 'header',
            required: true,
            description: 'sha256= followed by the lowercase hex HMAC-SHA256 of `{timestamp}.{raw body}`, keyed with the hmac_secret',
            schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
          },
          {
            name: TIMESTAMP_HEADER,
            in: 'header',
            required: true,
            description: 'unix seconds when the attempt was signed; part of the signed text',
            schema: { type: 'string', pattern: '^[0-9]+$' },
          },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                allOf: [{ $ref: `${COMPONENT_PREFIX}WebhookEnvelope` }, { type: 'object', properties: { event: { const: event } } }],
              },
            },
          },
        },
        responses: {
          '2XX': { description: 'accepted; the delivery is logged as delivered' },
          '4XX': { description: 'rejected; logged as third_party_rejected and retried under at-least-once' },
          '5XX': { description: 'the receiver failed to handle it; logged as handler_error and retried under at-least-once' },
        },
      },
    };
  }
  return out;
}

export function buildOpenApiDocument(opts: { version: string }): JsonSchema {
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
      responses[String(status)] = errorResponse(codes, errorRef);
    }
    const wait = WAIT_EVENTS[op.operationId as OperationId];
    if (wait !== undefined) responses['200'] = waitResponse(wait);

    const operation: Record<string, unknown> = {
      operationId: op.operationId,
      summary: op.summary,
      description: `${OPERATION_DESCRIPTIONS[op.operationId as OperationId]} ${scopeNote(op.scope)}`,
      tags: [op.tag],
      security: op.scope === 'none' ? [] : [{ bearer: [] }],
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(op.rawBody !== undefined
        ? {
            requestBody: {
              required: true,
              description: op.rawBody.description,
              content: { [op.rawBody.contentType]: { schema: { type: 'string', contentMediaType: op.rawBody.contentType } } },
            },
          }
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
      // The project is not published under an open licence (package.json: private); see docs/decisions/046-openapi-for-tools.md.
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      contact: { name: 'Meeting Automation Service maintainers' },
    },
    servers: [
      {
        url: 'http://127.0.0.1:8420',
        description: 'The loopback listener: plain HTTP, on this machine only; serves whenever the Automation API is on.',
      },
      {
        url: 'https://{host}:8421',
        description:
          "The LAN listener: only when LAN access is enabled in the application; TLS with the installation's self-signed certificate.",
        variables: { host: { default: 'localhost', description: 'the name or address of the machine running the application' } },
      },
    ],
    tags: TAGS,
    paths,
    webhooks: webhooksSection(),
    components: {
      schemas: { ...schemas.components, WebhookEnvelope: WEBHOOK_ENVELOPE },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'an API token' } },
    },
  };
}
