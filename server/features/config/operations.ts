/**
 * The rows of the operations table for the configuration sections (API.md, Configuration).
 * server/operations.ts assembles them with every other feature's rows; the
 * handlers are in handlers.ts beside this file.
 */
import { OVERWRITE, READ, type Operation } from '../../kernel/operation-types.ts';
import { ConfigDto, ConfigSectionBody, CONFIG_SECTION_NAMES } from './schemas.ts';

export const CONFIG_OPERATIONS = [
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
