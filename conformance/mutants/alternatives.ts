/**
 * Alternatives: proxies in front of a conforming target that change it into
 * another conforming one, where the spec leaves a choice open. Mutants must
 * be killed; alternatives must never be failed. They guard the suite against
 * verdicts that rest on the reference's own choices (docs/decisions/040-conformance-premises.md).
 * variants.ts runs each through the whole suite (decision 073).
 */
import type { Mutant, MutantTools, ProxyResponse } from './proxy.ts';
import { jsonOf, withJson } from './proxy.ts';

export interface Alternative extends Omit<Mutant, 'expect'> {
  /** The checks that must not FAIL (nor ERROR) against it (alternatives.test.ts; variants.ts runs them all). */
  checks: string[];
}

/**
 * An undecodable import kept as an empty meeting. Only the imports whose
 * upload went through this proxy count (a failed job seeded through the
 * Control API is no import of bytes); each failed one gets an empty meeting
 * once, made through the Control API as the application would make it, and is
 * shown succeeded with that meeting wherever the API shows the job: GET
 * /v1/jobs/{id}, the job list and the job wait. The job.failed webhook the
 * target sends goes to the receiver past the proxy and is not rewritten.
 */
function undecodableKeptAsEmptyMeeting(): Pick<Mutant, 'response' | 'uploadAnswer'> {
  const uploaded = new Set<string>();
  /** Job id → the empty meeting that stands for it. */
  const emptyMeetings = new Map<string, Promise<string | null>>();
  const meetingFor = (jobId: string, tools: MutantTools): Promise<string | null> => {
    let meeting = emptyMeetings.get(jobId);
    if (meeting === undefined) {
      const control = tools.control!;
      meeting = fetch(`${control.url}/control/meetings`, {
        method: 'POST',
        headers: { authorization: `Bearer ${control.secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Imported audio', segments: [] }),
      }).then(
        async (r) => ((await r.json()) as { id?: string }).id ?? null,
        () => null,
      );
      emptyMeetings.set(jobId, meeting);
    }
    return meeting;
  };
  /** The job as this target shows it: a failed import of uploaded bytes succeeded with an empty meeting. */
  const kept = async (job: Record<string, unknown>, tools: MutantTools): Promise<Record<string, unknown>> => {
    if (job['kind'] !== 'import' || job['state'] !== 'failed' || typeof job['id'] !== 'string' || !uploaded.has(job['id'])) return job;
    const id = await meetingFor(job['id'], tools);
    return id === null ? job : { ...job, state: 'succeeded', stage: 'done', progress: 1, meeting_id: id, error: null, is_retryable: false };
  };
  return {
    uploadAnswer: (_req, status, body) => {
      if (status !== 202) return;
      try {
        const id = (JSON.parse(body.toString('utf8')) as { job_id?: unknown }).job_id;
        if (typeof id === 'string') uploaded.add(id);
      } catch {
        // Not JSON: no job to follow.
      }
    },
    response: async (req, res, tools): Promise<ProxyResponse> => {
      if (req.method !== 'GET' || res.status !== 200 || tools.control === undefined) return res;
      const path = req.url.pathname;
      if (/^\/v1\/jobs\/[^/]+$/.test(path)) {
        const job = jsonOf(res) as Record<string, unknown> | undefined;
        return job === undefined ? res : withJson(res, await kept(job, tools));
      }
      if (path === '/v1/jobs') {
        const list = jsonOf(res) as { jobs?: unknown } | undefined;
        if (list === undefined || !Array.isArray(list.jobs)) return res;
        const jobs = await Promise.all((list.jobs as Array<Record<string, unknown>>).map((j) => kept(j, tools)));
        return withJson(res, { ...list, jobs });
      }
      const wait = /^\/v1\/jobs\/([^/]+)\/wait$/.exec(path);
      if (wait !== null && uploaded.has(decodeURIComponent(wait[1]!))) {
        // The one event of the wait: job.failed with the JobDto becomes job.completed with the kept job.
        const text = res.body.toString('utf8');
        const m = /event:\s*job\.failed\r?\n(data:[^\n]*\n)/.exec(text);
        if (m === null) return res;
        const data = JSON.parse(m[1]!.slice('data:'.length).trim()) as Record<string, unknown>;
        const job = await kept(data, tools);
        const event = `event: job.completed\ndata: ${JSON.stringify(job)}\n`;
        return { ...res, body: Buffer.from(text.replace(m[0], event)) };
      }
      return res;
    },
  };
}

export const ALTERNATIVES: Alternative[] = [
  {
    name: 'no-speech-import-makes-empty-meeting',
    description:
      'an import the target cannot transcribe succeeds as a meeting with an empty transcript ' +
      'instead of failing (API.md does not say which)',
    checks: ['jobs/import-no-source-path', 'jobs/import-undecodable'],
    ...undecodableKeptAsEmptyMeeting(),
    bufferedStreams: /^\/v1\/jobs\/[^/]+\/wait$/,
  },
];
