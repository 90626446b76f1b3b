/**
 * The recording's start and stop ten times slower, with ONE state behind
 * everything the proxy says about the recorder
 * (docs/decisions/121-conformance-slowed-recorder-one-state.md).
 *
 * The proxy keeps its own phase of the recorder: `starting` from an accepted
 * start, `stopping` from an accepted stop, or none (the target shown as it
 * is). A phase lasts ten times as long as the target itself took to leave it
 * (the proxy polls GET /v1/recording to learn when; at most 6 s longer). Every answer about the
 * recorder comes from that one phase, read at the moment of the answer:
 *
 * - GET /v1/recording shows the target's own answer to the call that opened
 *   the phase (a 202 start: starting; a 200 stop: stopping) while the phase
 *   lasts, and the target as it is otherwise;
 * - a start while in a phase is refused with 409 recording_in_progress, a
 *   pause or resume with 409 recording_active, as the reference refuses them
 *   in starting and stopping (server/features/recording/states.ts); a stop
 *   while stopping answers 200 with the state as it is (the reference's
 *   "already on the way"); a stop while starting goes to the target and opens
 *   a stopping phase;
 * - the recording wait's answer is held until the phase is over, or answers
 *   its own timeout event when that comes first.
 *
 * So a caller that reads idle can always start, and a caller refused with 409
 * reads starting or stopping: the phase that refused it is the phase it reads.
 * The previous slowed recorder (decision 105, "Left") held a timeline of samples
 * for the reads and a separate "busy" test for the refusals.
 */
import type { Mutant, MutantTools, ProxyRequest, ProxyResponse } from './proxy.ts';
import { answer, errorAnswer, jsonOf, withJson } from './proxy.ts';

/** How much slower the recorder's start and stop are... */
const SLOWDOWN = 10;
/**
 * ...adding at most this much to the target's own time: the suite gives a start 10 s to reach recording
 * (then SKIPs, decision 081), and a start of the reference takes 0.2–3.4 s on a loaded machine, so an
 * uncapped tenfold start would SKIP most recording checks instead of having them grade a slow recorder.
 */
const MAX_ADDED_MS = 6000;
/** How often the target's own state is read while a phase lasts. */
const SAMPLE_MS = 40;
/** A phase the target has not left after this long is ended (then the target is shown as it is). */
const FOLLOW_MS = 10 * 60_000;
/** The recording wait's timeout when its query gives none (the reference's default; API.md: "not shown"). */
const WAIT_DEFAULT_SECONDS = 300;
/** A start or stop sent to the target is taken as answered after this long even if no answer came back. */
const ACTION_ANSWER_MS = 10_000;

type Phase = 'starting' | 'stopping';

interface SlowedPhase {
  phase: Phase;
  /** The target's answer to the call that opened the phase (RecordingStateDto in that state): what reads show. */
  shown: Record<string, unknown>;
  openedAt: number;
  /** When the target itself left the phase, or null while it has not. */
  targetLeftAt: number | null;
}

const ACTION = /^\/v1\/recording\/(start|stop|pause|resume)$/;
const WAIT = '/v1/recording/wait';

const REFUSALS: Record<Phase, Record<'start' | 'pause' | 'resume', [string, string]>> = {
  starting: {
    start: ['recording_in_progress', 'a recording is already starting; stop it before starting another'],
    pause: ['recording_active', 'the recording is still starting; pause it once the state is recording'],
    resume: ['recording_active', 'the recording is still starting; there is nothing to resume'],
  },
  stopping: {
    start: ['recording_in_progress', 'the previous recording is still being finalized; start again once the state is idle'],
    pause: ['recording_active', 'the recording is stopping and can no longer be paused'],
    resume: ['recording_active', 'the recording is stopping and can no longer be resumed'],
  },
};

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A GET of the target's recorder with a caller's token: its state, or null when it did not answer 200. */
async function targetState(tools: MutantTools, auth: string): Promise<string | null> {
  const res = await tools.forward({
    method: 'GET',
    url: new URL('http://x/v1/recording'),
    headers: { authorization: auth },
    body: Buffer.alloc(0),
  });
  const state = (jsonOf(res) as { state?: unknown } | undefined)?.state;
  return res.status === 200 && typeof state === 'string' ? state : null;
}

/**
 * Would the target let this caller start, stop, pause or resume? Asked each time (no cache: a token may
 * be revoked), so a caller the target refuses gets the target's 401 or 403, never the proxy's 409.
 */
async function mayRecord(req: ProxyRequest, tools: MutantTools): Promise<boolean> {
  const res = await tools.forward({
    method: 'GET',
    url: new URL('http://x/v1/whoami'),
    headers: { authorization: req.headers['authorization'] ?? '' },
    body: Buffer.alloc(0),
  });
  const scopes = (jsonOf(res) as { scopes?: unknown } | undefined)?.scopes;
  return res.status === 200 && Array.isArray(scopes) && scopes.includes('record');
}

/**
 * A start the target refuses before it looks at the recorder's state (a body that is not a JSON object,
 * consent_attested false: server/features/recording/service.ts), so it may go to the target in any phase.
 */
function refusedBeforeState(req: ProxyRequest): boolean {
  if (req.body.length === 0) return false;
  try {
    const body = JSON.parse(req.body.toString('utf8')) as unknown;
    return (
      body === null || typeof body !== 'object' || Array.isArray(body) || (body as Record<string, unknown>)['consent_attested'] === false
    );
  } catch {
    return true;
  }
}

/** The timeout event of a held recording wait, with the data the reference gives its own. */
function timeoutEvent(res: ProxyResponse, req: ProxyRequest, seconds: number, state: string): ProxyResponse {
  const data = { until: req.url.searchParams.get('until'), timeout_seconds: seconds, state };
  return { ...res, body: Buffer.from(`event: timeout\ndata: ${JSON.stringify(data)}\n\n`) };
}

/** The wait's own timeout in seconds, as the reference reads it (clamped to 0–3600; 300 when absent). */
function waitSeconds(req: ProxyRequest): number {
  const raw = Number(req.url.searchParams.get('timeout') ?? NaN);
  return Number.isFinite(raw) ? Math.min(3600, Math.max(0, Math.trunc(raw))) : WAIT_DEFAULT_SECONDS;
}

export class SlowRecorder implements Pick<Mutant, 'request' | 'response'> {
  /** The clock every phase is read on, and the pause between reads of the target (a test passes its own). */
  readonly #now: () => number;
  readonly #sleep: (ms: number) => Promise<void>;
  #phase: SlowedPhase | null = null;
  /**
   * When a start or stop went to the target and its answer (which may open a phase) has not come back.
   * Reads and waits answered meanwhile wait for it: the target may already be recording before the proxy
   * knows its start was accepted.
   */
  #actionSentAt: number | null = null;
  /** When the proxy received each recording wait (its timeout counts from then). */
  readonly #askedAt = new WeakMap<ProxyRequest, number>();

  constructor(options: { now?: () => number; sleep?: (ms: number) => Promise<void> } = {}) {
    this.#now = options.now ?? Date.now;
    this.#sleep = options.sleep ?? sleep;
  }

  /** The one state every answer comes from: the phase while it lasts, null once it is over (the target as it is). */
  current(): SlowedPhase | null {
    const now = this.#now();
    const p = this.#phase;
    if (p === null || p.targetLeftAt === null) return p;
    const own = p.targetLeftAt - p.openedAt;
    if (now >= p.openedAt + Math.min(own * SLOWDOWN, own + MAX_ADDED_MS)) this.#phase = null;
    return this.#phase;
  }

  /** Opens a phase and follows the target until it leaves it (its own time, to be shown ten times longer). */
  #open(phase: Phase, shown: Record<string, unknown>, tools: MutantTools, auth: string): void {
    const p: SlowedPhase = { phase, shown: { ...shown, state: phase }, openedAt: this.#now(), targetLeftAt: null };
    this.#phase = p;
    void this.#follow(p, tools, auth);
  }

  /** Waits until no start or stop is on its way to the target (its answer decides the phase). */
  async #settled(): Promise<void> {
    while (this.#actionSentAt !== null && this.#now() - this.#actionSentAt < ACTION_ANSWER_MS) await this.#sleep(10);
  }

  async #follow(p: SlowedPhase, tools: MutantTools, auth: string): Promise<void> {
    while (this.#phase === p && p.targetLeftAt === null) {
      let state: string | null;
      try {
        state = await targetState(tools, auth);
      } catch {
        // The target restarts or is reset: the next read tells.
        await this.#sleep(SAMPLE_MS);
        continue;
      }
      const now = this.#now();
      // The token went away, or the phase was followed too long: from now on the target is shown as it is.
      if (state === null || now - p.openedAt > FOLLOW_MS) p.targetLeftAt = p.openedAt;
      // A start the target dropped without recording (a reset): nothing left to show starting.
      else if (p.phase === 'starting' && state === 'idle') p.targetLeftAt = p.openedAt;
      else if (state !== p.phase) p.targetLeftAt = now;
      else await this.#sleep(SAMPLE_MS);
    }
  }

  readonly request = async (req: ProxyRequest, tools: MutantTools): Promise<ProxyRequest | ProxyResponse> => {
    const path = req.url.pathname;
    if (req.method === 'GET' && path === WAIT) this.#askedAt.set(req, this.#now());
    const action = req.method === 'POST' ? ACTION.exec(path)?.[1] : undefined;
    if (action === undefined) return req;
    const toTarget = (): ProxyRequest => {
      if (action === 'start' || action === 'stop') this.#actionSentAt = this.#now();
      return req;
    };
    await this.#settled();
    if (this.current() === null) return toTarget();
    // The target's own refusals come first: a caller it does not let in, a start body it rejects in any state.
    if (!(await mayRecord(req, tools)) || (action === 'start' && refusedBeforeState(req))) return req;
    // Read again after the awaits: the answer comes from the phase as it is now.
    const p = this.current();
    if (p === null) return toTarget();
    if (action === 'stop') return p.phase === 'starting' ? toTarget() : answer(200, p.shown);
    const [code, message] = REFUSALS[p.phase][action as 'start' | 'pause' | 'resume'];
    return errorAnswer(409, code, message);
  };

  readonly response = async (req: ProxyRequest, res: ProxyResponse, tools: MutantTools): Promise<ProxyResponse> => {
    const path = req.url.pathname;
    const body = jsonOf(res) as Record<string, unknown> | undefined;
    const auth = req.headers['authorization'] ?? '';
    if (req.method === 'POST' && (path === '/v1/recording/start' || path === '/v1/recording/stop')) {
      this.#actionSentAt = null;
      if (res.status >= 300 || body === undefined) return res;
      if (path.endsWith('/start') && body['state'] === 'starting') this.#open('starting', body, tools, auth);
      if (path.endsWith('/stop') && body['state'] === 'stopping') this.#open('stopping', body, tools, auth);
      return res;
    }
    if (req.method !== 'GET') return res;
    if (path === '/v1/recording' && res.status === 200) {
      await this.#settled();
      const p = this.current();
      return p === null ? res : withJson(res, p.shown);
    }
    if (path === WAIT) return this.#holdWait(req, res);
    return res;
  };

  /** Holds a recording wait's event until the phase is over; its own timeout, when it comes first, answers a timeout event. */
  async #holdWait(req: ProxyRequest, res: ProxyResponse): Promise<ProxyResponse> {
    const text = res.body.toString('utf8');
    if (res.status !== 200 || !text.includes('event:') || /event:\s*timeout/.test(text)) return res;
    const seconds = waitSeconds(req);
    const deadline = (this.#askedAt.get(req) ?? this.#now()) + seconds * 1000;
    await this.#settled();
    for (let p = this.current(); p !== null; p = this.current()) {
      if (this.#now() >= deadline) return timeoutEvent(res, req, seconds, p.phase);
      await this.#sleep(Math.max(1, Math.min(100, deadline - this.#now())));
    }
    return res;
  }
}

/** The recording's start and stop ten times slower, every answer about the recorder from one phase. */
export function slowRecorder(): Pick<Mutant, 'request' | 'response'> {
  return new SlowRecorder();
}
