/**
 * The rows of the operations table for the system resources of API.md: health, whoami, the manifest, devices and models.
 * server/operations.ts assembles them with every other feature's rows; the
 * handlers are in handlers.ts beside this file.
 */
import { READ, type Operation } from '../../kernel/operation-types.ts';
import * as S from './schemas.ts';

export const SYSTEM_OPERATIONS = [
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
] as const satisfies readonly Operation[];
