/**
 * Schema version 4: speaker identification (decisions 147 and 148).
 *
 * - `voiceprint_enrolments`: what each labelled meeting taught about a
 *   person's voice, as the diarizer's frame statistics (JSON numbers, no
 *   audio, no words; server/pipeline/voiceprint.ts). A person's voiceprint is
 *   the sum of their rows, so each further labelled meeting strengthens it
 *   and labelling the same meeting again replaces that meeting's share
 *   rather than counting it twice. Biometric data: kept in this file, which
 *   is the owner's alone (kernel/store/owner-only.ts), written in the
 *   transaction of its enrolment (never half-written), wiped by the Control
 *   API's reset. No foreign key to meetings: deleting the meeting a person
 *   was enrolled from keeps what was learnt (removing the name from
 *   known_speakers deletes it).
 * - `speaker_labels.source`: whether a label was set by a user (PUT
 *   speaker-labels) or found by identification; identification never
 *   overwrites a user's label. Labels stored before identification existed
 *   were all set by users.
 */
import type { Migration } from './migration.ts';

export const MIGRATION_004_VOICEPRINTS: Migration = {
  version: 4,
  name: 'voiceprints and the source of speaker labels',
  sql: `
    CREATE TABLE voiceprint_enrolments (
      name        TEXT NOT NULL,
      meeting_id  TEXT NOT NULL,
      stats       TEXT NOT NULL,        -- JSON: the frame statistics (server/pipeline/voiceprint.ts, Voiceprint)
      enrolled_at TEXT NOT NULL,
      PRIMARY KEY (name, meeting_id)
    ) STRICT;

    ALTER TABLE speaker_labels ADD COLUMN source TEXT NOT NULL DEFAULT 'user' CHECK (source IN ('user', 'identified'));
  `,
};
