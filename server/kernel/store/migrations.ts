/**
 * Versioned schema migrations. Each entry runs once, inside its own
 * transaction together with the row that records it, so a crash mid-migration
 * leaves the file at the previous version, never half-migrated.
 *
 * Append new migrations at the end; never edit one that has shipped.
 */
import { MIGRATION_003_WEBHOOKS } from './migration-003-webhooks.ts';
import { MIGRATION_004_VOICEPRINTS } from './migration-004-voiceprints.ts';
import type { Migration } from './migration.ts';

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'settings, tokens, meetings, transcripts, summaries, config, search',
    sql: `
      CREATE TABLE settings (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL              -- JSON
      ) STRICT;

      CREATE TABLE tokens (
        id         TEXT PRIMARY KEY,
        hash       TEXT NOT NULL UNIQUE, -- hex SHA-256 of the raw token; the raw token is never stored
        name       TEXT NOT NULL,
        scopes     TEXT NOT NULL,        -- JSON array of scope names
        origin     TEXT NOT NULL CHECK (origin IN ('loopback', 'paired', 'lan')),
        kind       TEXT NOT NULL CHECK (kind IN ('standard', 'first_party', 'assistant')),
        enabled    INTEGER NOT NULL DEFAULT 1,
        created_at TEXT NOT NULL
      ) STRICT;

      CREATE TABLE meetings (
        seq              INTEGER PRIMARY KEY, -- stable rowid for the title index
        id               TEXT NOT NULL UNIQUE,
        title            TEXT NOT NULL,
        created_at       TEXT NOT NULL,
        updated_at       TEXT NOT NULL,
        source           TEXT NOT NULL,  -- recording, import or fixture
        language         TEXT,
        duration_seconds REAL,
        recording_file   TEXT            -- file name inside the data folder's recordings/, or NULL
      ) STRICT;
      CREATE INDEX meetings_by_created ON meetings (created_at DESC, id DESC);

      CREATE TABLE segments (
        id         INTEGER PRIMARY KEY,  -- stable rowid for the text index; see docs/decisions/006
        meeting_id TEXT NOT NULL REFERENCES meetings (id) ON DELETE CASCADE,
        idx        INTEGER NOT NULL,
        speaker    TEXT NOT NULL,
        start_s    REAL NOT NULL,
        end_s      REAL NOT NULL,
        text       TEXT NOT NULL,
        words      TEXT,                 -- JSON array of {text, start, end, confidence?} or NULL
        UNIQUE (meeting_id, idx)
      ) STRICT;
      -- A meeting's duration falls back to its last segment's end: one index step.
      CREATE INDEX segments_by_meeting_end ON segments (meeting_id, end_s);

      CREATE TABLE speaker_labels (
        meeting_id  TEXT NOT NULL REFERENCES meetings (id) ON DELETE CASCADE,
        speaker_key TEXT NOT NULL,
        label       TEXT NOT NULL,
        PRIMARY KEY (meeting_id, speaker_key)
      ) STRICT;

      CREATE TABLE summaries (
        meeting_id          TEXT PRIMARY KEY REFERENCES meetings (id) ON DELETE CASCADE,
        status              TEXT NOT NULL,
        result              TEXT,        -- JSON object or NULL
        regeneration_failed INTEGER NOT NULL DEFAULT 0,
        error               TEXT,
        updated_at          TEXT NOT NULL
      ) STRICT;

      CREATE TABLE config_sections (
        section    TEXT PRIMARY KEY,
        value      TEXT NOT NULL,        -- JSON object exactly as last PUT
        updated_at TEXT NOT NULL
      ) STRICT;

      -- Full-text indexes over segment text and meeting titles, kept in step
      -- by triggers. Results come newest first as a descending rowid scan,
      -- which FTS5 serves without scoring every match (docs/decisions/006).
      CREATE VIRTUAL TABLE segments_fts USING fts5 (
        text,
        content = 'segments',
        content_rowid = 'id',
        tokenize = 'unicode61 remove_diacritics 2'
      );
      CREATE VIRTUAL TABLE titles_fts USING fts5 (
        title,
        content = 'meetings',
        content_rowid = 'seq',
        tokenize = 'unicode61 remove_diacritics 2'
      );
      CREATE TRIGGER meetings_ai AFTER INSERT ON meetings BEGIN
        INSERT INTO titles_fts (rowid, title) VALUES (new.seq, new.title);
      END;
      CREATE TRIGGER meetings_ad AFTER DELETE ON meetings BEGIN
        INSERT INTO titles_fts (titles_fts, rowid, title) VALUES ('delete', old.seq, old.title);
      END;
      CREATE TRIGGER meetings_au AFTER UPDATE OF title ON meetings BEGIN
        INSERT INTO titles_fts (titles_fts, rowid, title) VALUES ('delete', old.seq, old.title);
        INSERT INTO titles_fts (rowid, title) VALUES (new.seq, new.title);
      END;
      CREATE TRIGGER segments_ai AFTER INSERT ON segments BEGIN
        INSERT INTO segments_fts (rowid, text) VALUES (new.id, new.text);
      END;
      CREATE TRIGGER segments_ad AFTER DELETE ON segments BEGIN
        INSERT INTO segments_fts (segments_fts, rowid, text) VALUES ('delete', old.id, old.text);
      END;
      CREATE TRIGGER segments_au AFTER UPDATE OF text ON segments BEGIN
        INSERT INTO segments_fts (segments_fts, rowid, text) VALUES ('delete', old.id, old.text);
        INSERT INTO segments_fts (rowid, text) VALUES (new.id, new.text);
      END;
    `,
  },
  {
    version: 2,
    name: 'jobs and summary regeneration operations',
    sql: `
      CREATE TABLE jobs (
        seq          INTEGER PRIMARY KEY,   -- creation order
        id           TEXT NOT NULL UNIQUE,
        kind         TEXT NOT NULL CHECK (kind IN ('import', 'retranscription', 'diarization')),
        state        TEXT NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled',
                                                    'pausing', 'paused', 'resuming', 'cancelling')),
        stage        TEXT NOT NULL,
        progress     REAL NOT NULL DEFAULT 0,
        meeting_id   TEXT REFERENCES meetings (id) ON DELETE SET NULL,
        is_retryable INTEGER NOT NULL DEFAULT 0,
        error        TEXT,                  -- stored as raised; the API shows it redacted
        params       TEXT NOT NULL,         -- JSON: filename extension, title, language, model, provider, speaker_count
        source_file  TEXT,                  -- upload file name inside <data>/uploads, or NULL
        origin       TEXT NOT NULL DEFAULT 'api' CHECK (origin IN ('api', 'desktop')),
        hold         INTEGER NOT NULL DEFAULT 0, -- Control API fixture: stays queued/running until finished by hand
        attempts     INTEGER NOT NULL DEFAULT 0,
        created_at   TEXT NOT NULL,
        updated_at   TEXT NOT NULL,
        finished_at  TEXT
      ) STRICT;
      CREATE INDEX jobs_by_state ON jobs (state);
      CREATE INDEX jobs_by_meeting ON jobs (meeting_id);

      CREATE TABLE summary_operations (
        id          TEXT PRIMARY KEY,
        meeting_id  TEXT NOT NULL REFERENCES meetings (id) ON DELETE CASCADE,
        state       TEXT NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed')),
        params      TEXT NOT NULL,          -- JSON: model, model_name, template_id, language as resolved
        error       TEXT,
        created_at  TEXT NOT NULL,
        updated_at  TEXT NOT NULL,
        finished_at TEXT
      ) STRICT;
      CREATE INDEX summary_operations_by_meeting ON summary_operations (meeting_id, state);
    `,
  },
  MIGRATION_003_WEBHOOKS,
  MIGRATION_004_VOICEPRINTS,
];
