/**
 * Alternatives: proxies in front of a conforming target that change it into
 * another conforming one, where the spec leaves a choice open. Mutants must
 * be killed; alternatives must never be failed. They guard the suite against
 * verdicts that rest on the reference's own choices (docs/decisions/040-conformance-premises.md).
 */
import type { Mutant } from './proxy.ts';
import { jsonOf, withJson } from './proxy.ts';

export interface Alternative extends Omit<Mutant, 'expect'> {
  /** The checks that must not FAIL (nor ERROR) against it. */
  checks: string[];
}

/** Job id → the empty meeting that stands for it. */
const emptyMeetings = new Map<string, Promise<string | null>>();

export const ALTERNATIVES: Alternative[] = [
  {
    name: 'no-speech-import-makes-empty-meeting',
    description:
      'an import the target cannot transcribe succeeds as a meeting with an empty transcript ' +
      'instead of failing (API.md does not say which)',
    checks: ['jobs/import-no-source-path'],
    response: async (req, res, tools) => {
      const m = /^\/v1\/jobs\/([^/]+)$/.exec(req.url.pathname);
      if (req.method !== 'GET' || m === null || res.status !== 200 || tools.control === undefined) return res;
      const job = jsonOf(res) as { kind?: string; state?: string } | undefined;
      if (job?.kind !== 'import' || job.state !== 'failed') return res;
      const control = tools.control;
      let meeting = emptyMeetings.get(m[1]!);
      if (meeting === undefined) {
        meeting = fetch(`${control.url}/control/meetings`, {
          method: 'POST',
          headers: { authorization: `Bearer ${control.secret}`, 'content-type': 'application/json' },
          body: JSON.stringify({ title: 'Imported audio', segments: [] }),
        }).then(
          async (r) => ((await r.json()) as { id?: string }).id ?? null,
          () => null,
        );
        emptyMeetings.set(m[1]!, meeting);
      }
      const id = await meeting;
      return id === null
        ? res
        : withJson(res, { ...job, state: 'succeeded', stage: 'done', progress: 1, meeting_id: id, error: null, is_retryable: false });
    },
  },
];
