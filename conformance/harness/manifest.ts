/**
 * Reading a target's /openapi.json: its operations as (method, full path)
 * pairs, with server path prefixes applied, and their x-service-* annotations.
 */
import type { CheckContext } from './context.ts';
import { routeKey } from '../spec/operations.ts';

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;

export interface ManifestOperation {
  method: string;
  /** The path as served (server prefix + path key). */
  path: string;
  key: string;
  operation: Record<string, unknown>;
}

interface Doc {
  servers?: Array<{ url?: string }>;
  paths?: Record<string, Record<string, unknown> & { servers?: Array<{ url?: string }> }>;
}

function serverPrefix(servers: Array<{ url?: string }> | undefined): string {
  const url = servers?.[0]?.url;
  if (url === undefined || url === '') return '';
  try {
    return new URL(url, 'http://x').pathname.replace(/\/+$/, '');
  } catch {
    return '';
  }
}

export function manifestOperations(doc: unknown): ManifestOperation[] {
  const d = doc as Doc;
  const out: ManifestOperation[] = [];
  for (const [p, item] of Object.entries(d.paths ?? {})) {
    if (item === null || typeof item !== 'object') continue;
    const prefix = serverPrefix(item.servers ?? d.servers);
    const path = `${prefix}${p}`;
    for (const m of HTTP_METHODS) {
      const operation = item[m];
      if (operation !== null && typeof operation === 'object') {
        out.push({ method: m.toUpperCase(), path, key: routeKey(m, path), operation: operation as Record<string, unknown> });
      }
    }
  }
  return out;
}

/** GET /openapi.json with a read token; null (and a note) when it cannot be read. */
export async function fetchManifest(ctx: CheckContext, token: string): Promise<unknown> {
  const res = await ctx.as(token).get('/openapi.json', { label: 'the manifest' });
  if (res.status !== 200 || res.jsonError !== undefined) {
    ctx.note(`GET /openapi.json answered ${res.describe(120)}: the manifest part of this check was not done`);
    return null;
  }
  return res.body;
}
