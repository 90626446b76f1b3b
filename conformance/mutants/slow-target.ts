/**
 * The slow-target variant: the reference seen ten times slower at every job
 * stage. The proxy keeps, for each job it learns of (an import's answer, a
 * diarization's, any job it is asked about), a timeline of the reference's
 * own JobDto polled from the job's birth until it ends; a caller is shown the
 * state the reference had at birth + (now − birth) / 10. GET /v1/jobs/{id},
 * the job list and the job wait (held until the slowed job reaches its end)
 * all show that clock, so a job the reference ends after 2 s ends after 20 s.
 *
 * Kept honest: a caller's own action on a job (cancel, pause, resume, retry)
 * takes effect at once, as on any target, and from then on the job is shown
 * as it is; the deliveries that announce a job's end go from the target to
 * the receiver past the proxy and are not slowed (docs/decisions/073-conformance-conforming-variants.md).
 */
import type { Mutant, MutantTools, ProxyRequest, ProxyResponse } from './proxy.ts';
import { jsonOf, withJson } from './proxy.ts';
import { JOB_TERMINAL_STATES } from '../spec/constants.ts';

/** How much slower the variant is. */
const SLOWDOWN = 10;
/** How often a known job's real state is sampled (the timeline's resolution, in the reference's time). */
const SAMPLE_MS = 40;
/** A job is followed at most this long (then shown as it is). */
const FOLLOW_MS = 10 * 60_000;
const TERMINAL = new Set<string>(JOB_TERMINAL_STATES);

interface Timeline {
  born: number;
  /** The reference's JobDto at increasing times. */
  samples: Array<{ at: number; job: Record<string, unknown> }>;
  /** From this moment on the job is shown as it is (a caller acted on it, or it was followed too long). */
  realFrom: number | null;
  ended: boolean;
  gone: boolean;
  auth: string;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The jobs the proxy follows: each one's timeline of the reference's JobDto, and the slowed clock that reads it. */
class JobTimelines {
  readonly #jobs = new Map<string, Timeline>();
  tools: MutantTools | null = null;

  get(id: string): Timeline | undefined {
    return this.#jobs.get(id);
  }

  /** The timeline of a job, begun (and followed) the first time the job is met. */
  learn(id: string, auth: string): Timeline {
    let t = this.#jobs.get(id);
    if (t === undefined) {
      t = { born: Date.now(), samples: [], realFrom: null, ended: false, gone: false, auth };
      this.#jobs.set(id, t);
      void this.#follow(id, t);
    }
    return t;
  }

  /** Samples the reference's JobDto until the job ends, vanishes or has been followed too long. */
  async #follow(id: string, t: Timeline): Promise<void> {
    while (!t.ended && !t.gone && Date.now() - t.born < FOLLOW_MS && this.tools !== null) {
      try {
        const res = await this.tools.forward({
          method: 'GET',
          url: new URL(`http://x/v1/jobs/${encodeURIComponent(id)}`),
          headers: { authorization: t.auth },
          body: Buffer.alloc(0),
        });
        if (res.status === 404) t.gone = true;
        const job = jsonOf(res);
        if (res.status === 200 && job !== null && typeof job === 'object') record(t, job as Record<string, unknown>);
      } catch {
        // The target restarts or is reset: the next sample tells.
      }
      await sleep(SAMPLE_MS);
    }
    if (!t.ended && !t.gone) t.realFrom ??= Date.now();
  }

  /** The JobDto to show for a job the target answered with `real` (its timeline begun if it was not). */
  shownFor(id: string, auth: string, real: Record<string, unknown>): Record<string, unknown> {
    const t = this.learn(id, auth);
    if (t.samples.length === 0) record(t, real);
    return shown(t, real);
  }
}

function record(t: Timeline, job: Record<string, unknown>): void {
  t.samples.push({ at: Date.now(), job });
  if (typeof job['state'] === 'string' && TERMINAL.has(job['state'])) t.ended = true;
}

/** The JobDto to show now: the reference's at the slowed clock, or `real` once the job is shown as it is. */
function shown(t: Timeline, real: Record<string, unknown>): Record<string, unknown> {
  if (t.realFrom !== null && Date.now() >= t.realFrom) return real;
  const clock = t.born + (Date.now() - t.born) / SLOWDOWN;
  let pick: Record<string, unknown> | null = null;
  for (const s of t.samples) if (s.at <= clock || pick === null) pick = s.job;
  return pick ?? real;
}

/** When the slowed clock reaches the reference's end of the job (ms from now), or 0. */
function untilEnd(t: Timeline): number {
  if (t.realFrom !== null) return 0;
  const end = t.samples.find((s) => typeof s.job['state'] === 'string' && TERMINAL.has(s.job['state']));
  if (end === undefined) return 0;
  return Math.max(0, t.born + (end.at - t.born) * SLOWDOWN - Date.now());
}

/** The answer of a GET on the jobs (one job, the list, a job's wait) as the slowed target gives it. */
async function slowedRead(jobs: JobTimelines, req: ProxyRequest, res: ProxyResponse): Promise<ProxyResponse> {
  const auth = req.headers['authorization'] ?? '';
  const path = req.url.pathname;
  const one = /^\/v1\/jobs\/([^/]+)$/.exec(path);
  if (one !== null) {
    const job = jsonOf(res) as Record<string, unknown> | undefined;
    return job === undefined ? res : withJson(res, jobs.shownFor(decodeURIComponent(one[1]!), auth, job));
  }
  if (path === '/v1/jobs') {
    const list = jsonOf(res) as { jobs?: unknown } | undefined;
    if (list === undefined || !Array.isArray(list.jobs)) return res;
    const jobsShown = (list.jobs as Array<Record<string, unknown>>).map((job) =>
      typeof job['id'] === 'string' ? jobs.shownFor(job['id'], auth, job) : job,
    );
    return withJson(res, { ...list, jobs: jobsShown });
  }
  const wait = /^\/v1\/jobs\/([^/]+)\/wait$/.exec(path);
  const tl = wait === null ? undefined : jobs.get(decodeURIComponent(wait[1]!));
  const text = res.body.toString('utf8');
  if (tl !== undefined && text.includes('event:') && !/event:\s*timeout/.test(text)) {
    // The wait resolved at the reference: the slowed job ends later, and so does its wait.
    // Give the follower a moment to sample the end the wait announced.
    for (let i = 0; i < 50 && !tl.ended && tl.realFrom === null; i++) await sleep(SAMPLE_MS);
    await sleep(untilEnd(tl));
  }
  return res;
}

export function slowTarget(): Pick<Mutant, 'request' | 'response' | 'uploadAnswer'> {
  const jobs = new JobTimelines();
  return {
    request: (req: ProxyRequest, t: MutantTools) => {
      jobs.tools = t;
      // A caller's own action on a job takes effect at once; from then on the job is shown as it is.
      const acted = /^\/v1\/jobs\/([^/]+)\/(cancel|pause|resume|retry)$/.exec(req.url.pathname);
      if (req.method === 'POST' && acted !== null) {
        const known = jobs.get(decodeURIComponent(acted[1]!));
        if (known !== undefined) known.realFrom ??= Date.now();
      }
      return req;
    },
    uploadAnswer: (req, status, body) => {
      if (status !== 202) return;
      try {
        const id = (JSON.parse(body.toString('utf8')) as { job_id?: unknown }).job_id;
        if (typeof id === 'string') jobs.learn(id, req.headers['authorization'] ?? '');
      } catch {
        // Not JSON: nothing to follow.
      }
    },
    response: async (req: ProxyRequest, res: ProxyResponse, t: MutantTools): Promise<ProxyResponse> => {
      jobs.tools = t;
      if (req.method === 'POST' && req.url.pathname === '/v1/jobs/diarization' && res.status < 300) {
        const id = (jsonOf(res) as { job_id?: unknown } | undefined)?.job_id;
        if (typeof id === 'string') jobs.learn(id, req.headers['authorization'] ?? '');
        return res;
      }
      if (req.method !== 'GET' || res.status !== 200) return res;
      return slowedRead(jobs, req, res);
    },
  };
}
