/**
 * The application's integration settings (CONTROL.md's Settings object),
 * kept in the settings table and cached in memory, since every request reads
 * the API switch and the license.
 */
import { z } from 'zod';
import { transaction, type Database } from './database.ts';

const LICENSE_STATES = ['pro', 'none', 'unverifiable'] as const;

/** host:port of a loopback or private webhook target, e.g. 127.0.0.1:9000 or [::1]:9000. */
const HostPort = z.string().regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, 'must be host:port');

const SettingsSchema = z.strictObject({
  automation_api_enabled: z.boolean(),
  license: z.enum(LICENSE_STATES),
  webhooks_enabled: z.boolean(),
  lan_enabled: z.boolean(),
  remote_recording_prearmed: z.boolean(),
  local_webhook_targets: z.array(HostPort),
});
export type Settings = z.infer<typeof SettingsSchema>;
export const SettingsPatch = SettingsSchema.partial();

/**
 * A fresh installation: the Automation API and webhook delivery are off
 * (API.md "What the service does" 2; Webhooks), the installation is licensed.
 * See docs/decisions/002-startup-and-defaults.md.
 */
const FRESH_INSTALL_SETTINGS: Settings = {
  automation_api_enabled: false,
  license: 'pro',
  webhooks_enabled: false,
  lan_enabled: false,
  remote_recording_prearmed: false,
  local_webhook_targets: [],
};

/** What the Control API's reset restores (CONTROL.md, Reset). */
export const RESET_SETTINGS: Settings = {
  automation_api_enabled: true,
  license: 'pro',
  webhooks_enabled: true,
  lan_enabled: false,
  remote_recording_prearmed: false,
  local_webhook_targets: [],
};

export class SettingsRepo {
  readonly #db: Database;
  #cache: Readonly<Settings>;

  constructor(db: Database) {
    this.#db = db;
    this.#cache = deepFreeze(this.#load());
  }

  /** The settings now: a frozen snapshot, read on every request without copying. */
  get(): Readonly<Settings> {
    return this.#cache;
  }

  /** Applies a validated patch and returns the whole object after it. */
  update(patch: Partial<Settings>): Settings {
    const next = SettingsSchema.parse({ ...this.#cache, ...patch });
    const upsert = this.#db.prepare(
      'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    );
    transaction(this.#db, () => {
      for (const [key, value] of Object.entries(next)) upsert.run(key, JSON.stringify(value));
    });
    this.#cache = deepFreeze(next);
    return this.get();
  }

  #load(): Settings {
    const rows = this.#db.prepare('SELECT key, value FROM settings').all() as { key: string; value: string }[];
    const stored: Record<string, unknown> = {};
    for (const row of rows) {
      if (Object.hasOwn(FRESH_INSTALL_SETTINGS, row.key)) stored[row.key] = JSON.parse(row.value) as unknown;
    }
    const parsed = SettingsSchema.safeParse({ ...FRESH_INSTALL_SETTINGS, ...stored });
    return parsed.success ? parsed.data : { ...FRESH_INSTALL_SETTINGS };
  }
}

function deepFreeze<T extends object>(value: T): T {
  for (const v of Object.values(value)) if (typeof v === 'object' && v !== null) Object.freeze(v);
  return Object.freeze(value);
}
