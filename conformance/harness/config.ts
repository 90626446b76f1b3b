/** Helpers for the config checks: read a section, pick a field that is safe to flip. */
import type { BoundClient } from './context.ts';

/** The config object of a section, or null when it cannot be read. */
export async function readSection(api: BoundClient, section: string): Promise<Record<string, unknown> | null> {
  const res = await api.get(`/v1/config/${section}`, { label: `read ${section}` });
  const config = (res.body as { config?: unknown } | undefined)?.config;
  return res.status === 200 && config !== null && typeof config === 'object' && !Array.isArray(config) ? (config as Record<string, unknown>) : null;
}

/** A field that arms recording; never flipped by the generic config checks. */
export const ARMING = /auto[_-]?record|arm/i;

export function togglableField(config: Record<string, unknown>): string | null {
  return Object.entries(config).find(([k, v]) => typeof v === 'boolean' && !ARMING.test(k))?.[0] ?? null;
}

/** The field of meeting-detection that arms auto-record, when the target has one. */
export function armingField(config: Record<string, unknown>): string | null {
  return Object.entries(config).find(([k, v]) => typeof v === 'boolean' && /auto[_-]?record/i.test(k))?.[0] ?? null;
}
