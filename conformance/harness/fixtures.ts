/**
 * Test data: meetings seeded through the Control API (POST /control/meetings),
 * built from the simulator's meeting scripts (fixtures/meetings/*.json) or
 * generated from the check's seed, so a run with the same --seed seeds the
 * same data.
 */
import { estimateLineSeconds } from '../../simulator/scripts/estimate-duration.ts';
import { loadScript } from '../../simulator/scripts/load-script.ts';
import { DEFAULT_PAUSE_SECONDS, parseScript } from '../../simulator/scripts/meeting-script.ts';
import type { MeetingScript } from '../../simulator/scripts/meeting-script.ts';
import { seededRandom } from '../../simulator/seeded-random.ts';
import type { SeededRandom } from '../../simulator/seeded-random.ts';
import { embeddedFile } from '../shipped.ts';
import { importMeeting } from './api-fixtures.ts';
import type { FixtureHost } from './context-types.ts';
import type { SeedMeeting, SeedSegment } from './control.ts';

export interface SeededMeeting {
  id: string;
  seed: SeedMeeting;
}

const LETTERS = 'bcdfghjklmnpqrstvwxz';

/** Segments laid out as the simulator's renderer would, with estimated line lengths and word times. */
function segmentsFromScript(script: MeetingScript): SeedSegment[] {
  const segments: SeedSegment[] = [];
  let lastEnd = 0;
  let previousEnd = 0;
  script.lines.forEach((line, i) => {
    const speaker = script.speakers.find((s) => s.key === line.speaker);
    const length = estimateLineSeconds(line.text, speaker?.rate);
    let start: number;
    if (i === 0) start = 0.5 + (line.pause_before ?? 0);
    else if (line.overlap !== undefined) start = previousEnd - line.overlap;
    else start = lastEnd + (line.pause_before ?? DEFAULT_PAUSE_SECONDS);
    const end = start + length;
    const tokens = line.text.split(/\s+/).filter((t) => t.length > 0);
    const step = length / Math.max(1, tokens.length);
    const round = (x: number): number => Math.round(x * 1000) / 1000;
    segments.push({
      speaker: line.speaker,
      start: round(start),
      end: round(end),
      text: line.text,
      words: tokens.map((t, k) => ({ text: t, start: round(start + k * step), end: round(start + (k + 1) * step) })),
    });
    previousEnd = end;
    lastEnd = Math.max(lastEnd, end);
  });
  return segments;
}

export class Fixtures {
  readonly #ctx: FixtureHost;
  readonly rng: SeededRandom;
  #words = new Set<string>();

  constructor(ctx: FixtureHost) {
    this.#ctx = ctx;
    this.rng = seededRandom(ctx.seed);
  }

  /**
   * A made-up word of consonants (so no search engine stems it or finds it in
   * other text), unique within the check.
   */
  word(length = 10): string {
    for (;;) {
      let w = 'q';
      for (let i = 1; i < length; i++) w += this.rng.pick(Array.from(LETTERS));
      if (!this.#words.has(w)) {
        this.#words.add(w);
        return w;
      }
    }
  }

  /** A small default meeting: two speakers, three segments (one with word timings), a summary. */
  defaultMeeting(overrides: Partial<SeedMeeting> = {}): SeedMeeting {
    const w = this.word();
    return {
      title: `Conformance meeting ${w}`,
      segments: [
        {
          speaker: 'S1',
          start: 0,
          end: 2.4,
          text: 'Good morning everyone.',
          words: [
            { text: 'Good', start: 0, end: 0.4 },
            { text: 'morning', start: 0.4, end: 1.1 },
            { text: 'everyone.', start: 1.1, end: 2.4 },
          ],
        },
        { speaker: 'S2', start: 2.6, end: 5.1, text: `Morning. Let us review the ${w} plan.` },
        { speaker: 'S1', start: 5.3, end: 8.0, text: 'Agreed, the release moves to Friday.' },
      ],
      summary: { text: `The team reviewed the ${w} plan and moved the release to Friday.` },
      ...overrides,
    };
  }

  /**
   * Seeds one meeting (Control API 'meetings'); without that capability, a
   * check that declares the need 'meeting' gets one made by importing speech
   * (harness/api-fixtures.ts) with the title asked for.
   */
  async meeting(overrides: Partial<SeedMeeting> = {}): Promise<SeededMeeting> {
    const seed = this.defaultMeeting(overrides);
    if (!this.#ctx.has('meetings') && this.#ctx.check.needs.includes('meeting')) return importMeeting(this.#ctx, seed.title);
    const id = await this.#ctx.control.seedMeeting(seed);
    return { id, seed };
  }

  /**
   * A meeting the check only reads (never changes): seeded like meeting() when
   * the Control API can seed; without it, one meeting made by importing speech
   * is shared by every such check of the run (an import takes seconds of the
   * target's transcription), so a check using it must not change it.
   */
  async meetingToRead(overrides: Partial<SeedMeeting> = {}): Promise<SeededMeeting> {
    if (this.#ctx.has('meetings') || !this.#ctx.check.needs.includes('meeting')) return this.meeting(overrides);
    const env = this.#ctx.env;
    // A failed import is not kept: the next check tries again (and is SKIPPED with its own reason).
    env.sharedMeeting ??= importMeeting(this.#ctx, `Conformance shared meeting ${this.word()}`).catch((err: unknown) => {
      env.sharedMeeting = undefined;
      throw err;
    });
    return env.sharedMeeting;
  }

  /** Seeds a meeting from a simulator script (fixtures/meetings/<name>.json). */
  async scriptMeeting(name: string, overrides: Partial<SeedMeeting> = {}): Promise<SeededMeeting> {
    // The release bundle carries the scripts inside itself (shipped.ts); a checkout reads fixtures/meetings/.
    const embedded = embeddedFile(`fixtures/meetings/${name}.json`);
    const script =
      embedded === undefined ? await loadScript(name) : parseScript(embedded.toString('utf8'), `fixtures/meetings/${name}.json`);
    const seed: SeedMeeting = { title: script.title, segments: segmentsFromScript(script), summary: null, ...overrides };
    const id = await this.#ctx.control.seedMeeting(seed);
    return { id, seed };
  }

  /** Seeds `count` meetings, oldest first (created_at one minute apart). */
  async many(count: number, make: (i: number) => Partial<SeedMeeting>): Promise<SeededMeeting[]> {
    const base = Date.parse('2026-01-01T09:00:00Z');
    const out: SeededMeeting[] = [];
    for (let i = 0; i < count; i++) {
      out.push(await this.meeting({ created_at: new Date(base + i * 60_000).toISOString(), ...make(i) }));
    }
    return out;
  }

  /**
   * Some meeting id to read: a seeded one when the Control API can seed, else
   * the first meeting the target lists (never modified), else one made by
   * importing the shipped speech.
   */
  async readableMeeting(token: string): Promise<string> {
    if (this.#ctx.has('meetings')) return (await this.meeting()).id;
    const res = await this.#ctx.as(token).get('/v1/meetings', { query: { limit: 1 } });
    const first = (res.body as { meetings?: Array<{ id?: unknown }> } | undefined)?.meetings?.[0]?.id;
    if (typeof first === 'string') return first;
    return (await importMeeting(this.#ctx, this.defaultMeeting().title)).id;
  }
}
