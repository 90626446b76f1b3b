/**
 * Per-section configuration: the eight sections of API.md, stored as last PUT
 * and read over their defaults.
 *
 * A PUT replaces the whole section (omitted fields are dropped from storage
 * and fall back to their defaults on the next read) and applies at once.
 * Arming auto-record (meeting-detection.auto_record = true) additionally
 * needs the record scope and pre-arming (API.md, Config).
 */
import { ApiError } from '../../kernel/errors.ts';
import { formatIssues } from '../../kernel/http/validation.ts';
import { satisfies, type Scope } from '../../kernel/scopes.ts';
import type { Clock } from '../../adapters/clock.ts';
import type { Database } from '../../kernel/store/database.ts';
import type { TranscriptionSettings } from '../../pipeline/transcribe.ts';
import {
  CONFIG_SECTIONS,
  effectiveConfig,
  isConfigSection,
  typedEffectiveConfig,
  type ConfigSectionName,
  type EffectiveSection,
} from './schemas.ts';

export interface ConfigView {
  section: ConfigSectionName;
  config: Record<string, unknown>;
  withheld: string[];
}

export interface ConfigCaller {
  scopes: readonly Scope[];
}

/**
 * The people enrolled for speaker identification (features/speakers'
 * voiceprints): the speaker-identification section's known_speakers lists
 * them, and a PUT that gives known_speakers without a name deletes its
 * voiceprint (decision 147).
 */
export interface EnrolledSpeakers {
  names(): string[];
  keepOnly(names: readonly string[]): void;
}

export class ConfigService {
  readonly #db: Database;
  readonly #clock: Clock;
  readonly #enrolled: EnrolledSpeakers | null;

  constructor(opts: { db: Database; clock: Clock; enrolled?: EnrolledSpeakers }) {
    this.#db = opts.db;
    this.#clock = opts.clock;
    this.#enrolled = opts.enrolled ?? null;
  }

  /** 404 for a name outside the eight (docs/decisions/005: the spec lists 404 and 422). */
  section(name: string): ConfigSectionName {
    if (!isConfigSection(name)) {
      throw new ApiError(
        'not_found',
        `there is no config section "${name.slice(0, 60)}"; valid sections: ${Object.keys(CONFIG_SECTIONS).join(', ')}`,
      );
    }
    return name;
  }

  get(name: ConfigSectionName): ConfigView {
    return this.#view(name, this.#stored(name));
  }

  replace(name: ConfigSectionName, body: unknown, caller: ConfigCaller, prearmed: boolean): ConfigView {
    const parsed = CONFIG_SECTIONS[name].schema.safeParse(body);
    if (!parsed.success) throw new ApiError('invalid_request', formatIssues(parsed.error.issues));
    const value = parsed.data as Record<string, unknown>;
    if (name === 'meeting-detection' && value['auto_record'] === true) {
      if (!satisfies(caller.scopes, 'record')) {
        throw new ApiError('insufficient_scope', 'arming auto-record needs the record scope in addition to write');
      }
      if (!prearmed) {
        throw new ApiError('not_prearmed', 'arming auto-record needs recording to be pre-armed in the application settings');
      }
    }
    this.#db
      .prepare(
        `INSERT INTO config_sections (section, value, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (section) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      )
      .run(name, JSON.stringify(value), this.#clock.now().toISOString());
    // Leaving a person out of a given known_speakers removes their voiceprint; a PUT without the field keeps them all.
    const known = value['known_speakers'];
    if (name === 'speaker-identification' && Array.isArray(known)) this.#enrolled?.keepOnly(known.map((k: { name: string }) => k.name));
    return this.#view(name, value);
  }

  /** What the pipeline reads: the section in force, defaults filled in, typed by the section's schema. */
  effective<N extends ConfigSectionName>(name: N): EffectiveSection<N> {
    return typedEffectiveConfig(name, this.#stored(name));
  }

  /**
   * The sections a transcription runs with, read once as it starts (imports,
   * retranscriptions, diarizations, recordings): the pipeline is handed them
   * and never reads the configuration itself.
   */
  transcriptionSettings(): TranscriptionSettings {
    const customWords = this.effective('custom-words');
    const prompt = this.effective('initial-prompt');
    return {
      vad: this.effective('vad'),
      diarization: this.effective('diarization'),
      customWords: customWords.enabled ? customWords.words : [],
      initialPrompt: prompt.enabled ? prompt.prompt : '',
    };
  }

  #stored(name: ConfigSectionName): Record<string, unknown> | null {
    const row = this.#db.prepare('SELECT value FROM config_sections WHERE section = ?').get(name) as { value: string } | undefined;
    return row === undefined ? null : (JSON.parse(row.value) as Record<string, unknown>);
  }

  #view(name: ConfigSectionName, stored: Record<string, unknown> | null): ConfigView {
    const config = effectiveConfig(name, stored);
    if (name === 'speaker-identification' && this.#enrolled !== null) {
      // The names given by PUT (enrolled or still waiting for a labelled meeting), then the enrolled ones not among them.
      const given = (config['known_speakers'] as { name: string }[] | undefined) ?? [];
      const listed = new Set(given.map((k) => k.name));
      config['known_speakers'] = [
        ...given,
        ...this.#enrolled
          .names()
          .filter((n) => !listed.has(n))
          .map((n) => ({ name: n })),
      ];
    }
    return { section: name, config, withheld: [...CONFIG_SECTIONS[name].withheld] };
  }
}
