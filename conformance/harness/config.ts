/** Helpers for the config checks: read a section, pick a field that is safe to flip. */
import type { BoundClient } from './context-types.ts';

/** The config object of a section, or null when it cannot be read. */
export async function readSection(api: BoundClient, section: string): Promise<Record<string, unknown> | null> {
  const res = await api.get(`/v1/config/${section}`, { label: `read ${section}` });
  const config = (res.body as { config?: unknown } | undefined)?.config;
  return res.status === 200 && config !== null && typeof config === 'object' && !Array.isArray(config)
    ? (config as Record<string, unknown>)
    : null;
}

/** A field that arms recording; never flipped by the generic config checks. */
const ARMING = /auto[_-]?record|arm/i;

function togglableField(config: Record<string, unknown>): string | null {
  return Object.entries(config).find(([k, v]) => typeof v === 'boolean' && !ARMING.test(k))?.[0] ?? null;
}

/** Each section of `sections` that reads as a config object with a boolean field safe to flip, with that field. */
export async function* togglableSections(
  api: BoundClient,
  sections: readonly string[],
): AsyncGenerator<{ section: string; original: Record<string, unknown>; field: string }> {
  for (const section of sections) {
    const original = await readSection(api, section);
    if (original === null) continue;
    const field = togglableField(original);
    if (field !== null) yield { section, original, field };
  }
}

/** The field of meeting-detection that arms auto-record, when the target has one. */
function armingField(config: Record<string, unknown>): string | null {
  return Object.entries(config).find(([k, v]) => typeof v === 'boolean' && /auto[_-]?record/i.test(k))?.[0] ?? null;
}

/**
 * What the auto-record checks start from: the meeting-detection section and
 * its arming field, or the reason they cannot run on this target (the spec
 * does not name the field, so a target may not have one).
 */
export async function armingSection(api: BoundClient): Promise<{ original: Record<string, unknown>; field: string } | { skip: string }> {
  const original = await readSection(api, 'meeting-detection');
  if (original === null) return { skip: 'GET /v1/config/meeting-detection did not answer a config object' };
  const field = armingField(original);
  if (field === null) {
    return {
      skip: `meeting-detection has no boolean auto-record field (fields: ${Object.keys(original).join(', ')}); the arming field is not named by the spec`,
    };
  }
  return { original, field };
}
