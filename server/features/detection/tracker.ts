/**
 * The meetings the detector follows, one per entry of `apps`: a pure state
 * machine driven by what the sound server shows (update) and by timers it is
 * given, so its tests run on an injected clock.
 *
 *   (none) --app captures--> candidate --min_meeting_seconds--> live (onDetected)
 *   candidate --app's capture gone--> (none): too short, nothing reported
 *   live --app's capture gone--> ending --grace--> (none) (onEnded)
 *   ending --app captures again--> live: the same meeting (onResumed)
 *
 * Decision: docs/decisions/143-detected-meeting-lifecycle.md.
 */

export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** What the tracker is told about one app that captures now. */
export interface Sighting<S> {
  /** The entry of `apps` it matched (the meeting's key). */
  app: string;
  /** Whatever the caller needs back (the stream, its device). */
  detail: S;
}

type MeetingPhase = 'candidate' | 'live' | 'ending';

export interface TrackedMeeting<S> {
  app: string;
  phase: MeetingPhase;
  /** The latest sighting's detail. */
  detail: S;
  /** When the app was first seen capturing (ms, the tracker's clock). */
  since: number;
  detectedAt: number | null;
}

export interface TrackerOptions<S> {
  /** Read when an app is first seen, so a changed setting applies to the next meeting. */
  minMeetingMs: () => number;
  graceMs: number;
  now: () => number;
  timers?: Timers;
  onDetected(m: TrackedMeeting<S>): void;
  onEnded(m: TrackedMeeting<S>): void;
  onResumed?(m: TrackedMeeting<S>): void;
}

interface Entry<S> {
  m: TrackedMeeting<S>;
  timer: unknown;
}

export class MeetingTracker<S> {
  readonly #o: TrackerOptions<S>;
  readonly #timers: Timers;
  readonly #entries = new Map<string, Entry<S>>();

  constructor(o: TrackerOptions<S>) {
    this.#o = o;
    this.#timers = o.timers ?? realTimers;
  }

  meetings(): TrackedMeeting<S>[] {
    return [...this.#entries.values()].map((e) => ({ ...e.m }));
  }

  /** Every app that captures now (one sighting per app; later ones for the same app are ignored). */
  update(sightings: readonly Sighting<S>[]): void {
    const seen = new Map<string, Sighting<S>>();
    for (const s of sightings) if (!seen.has(s.app)) seen.set(s.app, s);
    for (const [app, e] of [...this.#entries]) {
      const s = seen.get(app);
      if (s !== undefined) {
        e.m.detail = s.detail;
        if (e.m.phase === 'ending') {
          this.#timers.clear(e.timer);
          e.timer = null;
          e.m.phase = 'live';
          this.#o.onResumed?.({ ...e.m });
        }
        continue;
      }
      if (e.m.phase === 'candidate') {
        this.#timers.clear(e.timer);
        this.#entries.delete(app);
      } else if (e.m.phase === 'live') {
        e.m.phase = 'ending';
        e.timer = this.#timers.set(() => this.#end(app), this.#o.graceMs);
      }
    }
    for (const [app, s] of seen) {
      if (this.#entries.has(app)) continue;
      const e: Entry<S> = { m: { app, phase: 'candidate', detail: s.detail, since: this.#o.now(), detectedAt: null }, timer: null };
      this.#entries.set(app, e);
      e.timer = this.#timers.set(() => this.#detect(app), Math.max(0, this.#o.minMeetingMs()));
    }
  }

  /** Ends every meeting at once (the sound server went away, detection switched off): live ones are reported ended. */
  endAll(): void {
    for (const [app, e] of [...this.#entries]) {
      this.#timers.clear(e.timer);
      this.#entries.delete(app);
      if (e.m.phase !== 'candidate') this.#o.onEnded({ ...e.m });
    }
  }

  #detect(app: string): void {
    const e = this.#entries.get(app);
    if (e?.m.phase !== 'candidate') return;
    e.timer = null;
    e.m.phase = 'live';
    e.m.detectedAt = this.#o.now();
    this.#o.onDetected({ ...e.m });
  }

  #end(app: string): void {
    const e = this.#entries.get(app);
    if (e?.m.phase !== 'ending') return;
    this.#entries.delete(app);
    this.#o.onEnded({ ...e.m });
  }
}
