/**
 * The table of every operation the gateway serves.
 *
 * The router (app.ts), the scope check (auth.ts) and GET /openapi.json
 * (openapi.ts) are all built from this one table, so they cannot drift apart;
 * operations.test.ts proves it. A route that is not in this table does not
 * exist. Later features add their rows here and their handlers under routes/.
 */
import type { z } from 'zod';
import type { RequiredScope } from './scopes.ts';
import { boolParam, enumParam, paginationParams, stringParam, type QueryParam } from './http/query.ts';
import * as M from './schemas/meetings.ts';
import * as S from './schemas/system.ts';
import { ConfigDto, ConfigSectionBody, CONFIG_SECTION_NAMES } from './schemas/config.ts';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface ResponseSpec {
  description: string;
  /** JSON body schema; omitted for responses with no JSON body. */
  schema?: z.ZodType;
  /** Non-JSON representations (export renders Markdown and text). */
  contentTypes?: readonly string[];
}

export interface PathParam {
  description: string;
  enum?: readonly string[];
}

export interface Operation {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI path template, e.g. /v1/meetings/{id}. */
  path: string;
  tag: string;
  summary: string;
  /** The enforced minimum scope (x-service-required-scope). */
  scope: RequiredScope;
  /** /health alone answers whatever the API switch and license say. */
  ungated?: boolean;
  readOnly: boolean;
  idempotent: boolean;
  destructive: boolean;
  pathParams?: Record<string, PathParam>;
  query?: Record<string, QueryParam<unknown>>;
  /**
   * The JSON request body. The router validates it against `schema` unless
   * `validatedByHandler` is set (config sections pick their schema by path).
   */
  body?: { schema: z.ZodType; required: boolean; validatedByHandler?: boolean };
  /** Success responses by status. Error responses are added from the registry by openapi.ts. */
  responses: Record<number, ResponseSpec>;
}

const meetingId: Record<string, PathParam> = { id: { description: 'meeting id' } };

const READ = { readOnly: true, idempotent: true, destructive: false } as const;
const REPLACE = { readOnly: false, idempotent: true, destructive: false } as const;
const OVERWRITE = { readOnly: false, idempotent: true, destructive: true } as const;

export const OPERATIONS = [
  // ── Health, identity, manifest, search, devices, models ──────────────────
  {
    operationId: 'getHealth',
    method: 'get',
    path: '/health',
    tag: 'system',
    summary: 'Liveness and counters; answers 200 even while the API is off or unlicensed',
    scope: 'none',
    ungated: true,
    ...READ,
    responses: { 200: { description: 'health', schema: S.HealthResponse } },
  },
  {
    operationId: 'getWhoami',
    method: 'get',
    path: '/v1/whoami',
    tag: 'system',
    summary: "The caller's token id, scopes and license tier",
    scope: 'read',
    ...READ,
    responses: { 200: { description: 'caller identity', schema: S.WhoamiResponse } },
  },
  {
    operationId: 'getOpenApi',
    method: 'get',
    path: '/openapi.json',
    tag: 'system',
    summary: 'The OpenAPI 3.1 manifest of this running service',
    scope: 'read',
    ...READ,
    responses: { 200: { description: 'OpenAPI 3.1 document' } },
  },
  {
    operationId: 'searchMeetings',
    method: 'get',
    path: '/v1/search',
    tag: 'search',
    summary: 'Full-text search over meeting titles and transcripts',
    scope: 'read',
    ...READ,
    query: {
      q: stringParam({ required: true, description: 'words to find', maxLength: 500, missingCode: 'bad_request' }),
      ...paginationParams,
    },
    responses: { 200: { description: 'matches, title hits first, then transcript hits; newest meetings first', schema: S.SearchResponse } },
  },
  {
    operationId: 'listDevices',
    method: 'get',
    path: '/v1/devices',
    tag: 'system',
    summary: 'Audio input and output devices, real and simulated',
    scope: 'read',
    ...READ,
    responses: { 200: { description: 'devices', schema: S.DeviceListResponse } },
  },
  {
    operationId: 'listModels',
    method: 'get',
    path: '/v1/models',
    tag: 'system',
    summary: 'Speech recognition models present on this machine (read-only)',
    scope: 'read',
    ...READ,
    responses: { 200: { description: 'models', schema: S.ModelListResponse } },
  },

  // ── Meetings ──────────────────────────────────────────────────────────────
  {
    operationId: 'listMeetings',
    method: 'get',
    path: '/v1/meetings',
    tag: 'meetings',
    summary: 'Meetings, newest first',
    scope: 'read',
    ...READ,
    query: { ...paginationParams },
    responses: { 200: { description: 'a page of meetings', schema: M.MeetingListResponse } },
  },
  {
    operationId: 'getMeeting',
    method: 'get',
    path: '/v1/meetings/{id}',
    tag: 'meetings',
    summary: 'One meeting',
    scope: 'read',
    ...READ,
    pathParams: meetingId,
    responses: { 200: { description: 'the meeting', schema: M.MeetingDto } },
  },
  {
    operationId: 'renameMeeting',
    method: 'patch',
    path: '/v1/meetings/{id}',
    tag: 'meetings',
    summary: 'Rename a meeting (title at most 500 characters)',
    scope: 'write',
    ...REPLACE,
    pathParams: meetingId,
    body: { schema: M.RenameMeetingRequest, required: true },
    responses: { 200: { description: 'the renamed meeting', schema: M.MeetingDto } },
  },
  {
    operationId: 'deleteMeeting',
    method: 'delete',
    path: '/v1/meetings/{id}',
    tag: 'meetings',
    summary: 'Delete a meeting with its transcript and summary; irreversible',
    scope: 'delete',
    readOnly: false,
    idempotent: false,
    destructive: true,
    pathParams: meetingId,
    query: { delete_files: boolParam({ default: false, description: 'also remove the recording file' }) },
    responses: { 200: { description: 'deleted', schema: M.DeleteMeetingResponse } },
  },
  {
    operationId: 'getTranscript',
    method: 'get',
    path: '/v1/meetings/{id}/transcript',
    tag: 'meetings',
    summary: "A meeting's transcript",
    scope: 'read',
    ...READ,
    pathParams: meetingId,
    responses: { 200: { description: 'the transcript', schema: M.TranscriptResponse } },
  },
  {
    operationId: 'getSummary',
    method: 'get',
    path: '/v1/meetings/{id}/summary',
    tag: 'meetings',
    summary: "A meeting's summary",
    scope: 'read',
    ...READ,
    pathParams: meetingId,
    responses: { 200: { description: 'the summary', schema: M.SummaryDto } },
  },
  {
    operationId: 'overwriteSummary',
    method: 'put',
    path: '/v1/meetings/{id}/summary',
    tag: 'meetings',
    summary: 'Overwrite the stored summary; no undo',
    scope: 'write',
    ...OVERWRITE,
    pathParams: meetingId,
    body: { schema: M.OverwriteSummaryRequest, required: true },
    responses: { 200: { description: 'the summary after the overwrite', schema: M.SummaryDto } },
  },
  {
    operationId: 'setSpeakerLabels',
    method: 'put',
    path: '/v1/meetings/{id}/speaker-labels',
    tag: 'meetings',
    summary: 'Set display names for speaker cluster keys (null removes one)',
    scope: 'write',
    ...REPLACE,
    pathParams: meetingId,
    body: { schema: M.SpeakerLabelsRequest, required: true },
    responses: { 200: { description: 'all labels of the meeting after the update', schema: M.SpeakerLabelsResponse } },
  },
  {
    operationId: 'exportMeeting',
    method: 'get',
    path: '/v1/meetings/{id}/export',
    tag: 'meetings',
    summary: 'Export a meeting as JSON, Markdown or plain text',
    scope: 'read',
    ...READ,
    pathParams: meetingId,
    query: {
      format: enumParam({
        values: ['json', 'md', 'txt'],
        aliases: { markdown: 'md', text: 'txt' },
        default: 'json',
        description: 'json (default), md or txt; markdown and text are aliases',
      }),
    },
    responses: {
      200: {
        description: 'ExportDto for json; the rendered document for md and txt',
        schema: M.ExportDto,
        contentTypes: ['text/markdown', 'text/plain'],
      },
    },
  },

  // ── Config ────────────────────────────────────────────────────────────────
  {
    operationId: 'getConfigSection',
    method: 'get',
    path: '/v1/config/{section}',
    tag: 'config',
    summary: 'One configuration section',
    scope: 'read',
    ...READ,
    pathParams: { section: { description: 'section name', enum: CONFIG_SECTION_NAMES } },
    responses: { 200: { description: 'the section', schema: ConfigDto } },
  },
  {
    operationId: 'replaceConfigSection',
    method: 'put',
    path: '/v1/config/{section}',
    tag: 'config',
    summary: 'Replace a whole configuration section; applied immediately, omitted fields dropped',
    scope: 'write',
    ...OVERWRITE,
    pathParams: { section: { description: 'section name', enum: CONFIG_SECTION_NAMES } },
    body: { schema: ConfigSectionBody, required: true, validatedByHandler: true },
    responses: { 200: { description: 'the section after the change', schema: ConfigDto } },
  },
] as const satisfies readonly Operation[];

export type OperationId = (typeof OPERATIONS)[number]['operationId'];

/** Express route syntax of an OpenAPI path template: {id} → :id. */
export function expressPath(template: string): string {
  return template.replace(/\{([a-z_]+)\}/g, ':$1');
}

/** A matcher for a template, used to tell "unknown path" from "known path, other method". */
export function pathMatcher(template: string): RegExp {
  const pattern = template
    .split(/\{[a-z_]+\}/)
    .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
    .join('[^/]+');
  return new RegExp(`^${pattern}/?$`);
}
