/**
 * The voiceprints' SQL (table voiceprint_enrolments, migration 004): one row
 * per person and meeting they were enrolled from; a person's voiceprint is
 * the sum of their rows (server/pipeline/voiceprint.ts). The rows live in
 * the database file, which is the owner's alone; nothing here is ever
 * returned to the API, logged or exported (decision 147).
 */
import { allRows, transaction, type Database } from '../../kernel/store/database.ts';
import { accumulateVoiceprint, isVoiceprint, type Voiceprint } from '../../pipeline/voiceprint.ts';

export class VoiceprintRepo {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  /** Stores what one meeting taught about a person (replacing that meeting's earlier share), in one transaction. */
  enrol(name: string, meetingId: string, print: Voiceprint, at: string): void {
    transaction(this.#db, () => {
      this.#db
        .prepare(
          `INSERT INTO voiceprint_enrolments (name, meeting_id, stats, enrolled_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (name, meeting_id) DO UPDATE SET stats = excluded.stats, enrolled_at = excluded.enrolled_at`,
        )
        .run(name, meetingId, JSON.stringify(print), at);
    });
  }

  /** The enrolled people, in the order of their first enrolment. */
  names(): string[] {
    return allRows<{ name: string }>(
      this.#db.prepare('SELECT name FROM voiceprint_enrolments GROUP BY name ORDER BY MIN(enrolled_at), name'),
    ).map((r) => r.name);
  }

  /** Every enrolled person's voiceprint: their meetings' statistics added up. A damaged row is skipped. */
  voiceprints(): { name: string; print: Voiceprint; meetings: number }[] {
    const rows = allRows<{ name: string; stats: string }>(
      this.#db.prepare('SELECT name, stats FROM voiceprint_enrolments ORDER BY enrolled_at, name'),
    );
    const byName = new Map<string, { print: Voiceprint | null; meetings: number }>();
    for (const row of rows) {
      let stats: unknown;
      try {
        stats = JSON.parse(row.stats);
      } catch {
        continue;
      }
      if (!isVoiceprint(stats)) continue;
      const entry = byName.get(row.name) ?? { print: null, meetings: 0 };
      entry.print = accumulateVoiceprint(entry.print, stats);
      entry.meetings++;
      byName.set(row.name, entry);
    }
    return [...byName].flatMap(([name, e]) => (e.print === null ? [] : [{ name, print: e.print, meetings: e.meetings }]));
  }

  /** Deletes the voiceprints of every person not named. */
  keepOnly(names: readonly string[]): void {
    transaction(this.#db, () => {
      const keep = new Set(names);
      for (const name of this.names()) if (!keep.has(name)) this.#db.prepare('DELETE FROM voiceprint_enrolments WHERE name = ?').run(name);
    });
  }

  deleteAll(): void {
    this.#db.exec('DELETE FROM voiceprint_enrolments');
  }
}
