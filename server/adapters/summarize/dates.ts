/**
 * The days a meeting's sentences name, read by chrono-node: a task's or a
 * decision's date against the meeting's own date (notes.ts).
 */
import * as chrono from 'chrono-node';

const DURATION_ONLY =
  /^(?:about |around |roughly |some )?(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|few|couple of|\d+) (?:minutes?|hours?|days?|weeks?|months?|years?)$/i;

/**
 * The due date a task's sentence names, as YYYY-MM-DD: chrono-node reads
 * "by Friday", "on Thursday", "today", "end of the month", "next week"
 * forward from `reference` (the meeting's date plus the passage's offset). A
 * date before the meeting, and a bare duration ("takes about two days"),
 * are no due date.
 */
export function dueDate(text: string, reference: Date): string | undefined {
  for (const r of chrono.en.parse(text, reference, { forwardDate: true })) {
    if (DURATION_ONLY.test(r.text.trim())) continue;
    const y = r.start.get('year');
    const mo = r.start.get('month');
    const d = r.start.get('day');
    if (y === null || mo === null || d === null) continue;
    const iso = `${String(y).padStart(4, '0')}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
    if (iso < reference.toISOString().slice(0, 10)) continue;
    return iso;
  }
  return undefined;
}

/** The day the meeting took place, or today for a meeting without a valid date. */
export function meetingReference(date: string | null | undefined): Date {
  const d = date === null || date === undefined ? new Date() : new Date(date);
  return Number.isNaN(d.getTime()) ? new Date() : d;
}
