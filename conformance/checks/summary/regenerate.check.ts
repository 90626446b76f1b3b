import { importSilentMeeting } from '../../harness/api-fixtures.ts';
import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { GENERATION_BUDGET_MS, regenerate, settle } from './regeneration.ts';

export const check = defineCheck({
  id: 'summary/regenerate',
  clauses: [
    'summary.regenerate.202',
    'summary.regenerate.body-optional',
    'summary.operation.status',
    'summary.regenerate.empty-transcript.422',
  ],
  level: 'requirement',
  touches: 'own',
  needs: ['meeting', 'token'],
  // Two regenerations, each awaited within GENERATION_BUDGET_MS.
  timeoutMs: 150_000,
  description:
    'POST …/summary/regenerate with {} and with template_id and language (model names are the ' +
    'implementation’s) on a meeting with a transcript → 202 {operation_id, wait_url, ' +
    'status_url, state, meeting_id}; GET status_url and …/operations/{operation_id} → 200; an ' +
    'empty transcript → 422.',
  requirement:
    'Regenerating the summary of a meeting with a non-empty transcript answers 202 with ' +
    'operation_id, wait_url, status_url, state and meeting_id (run_id optional).',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    const m = await ctx.fixtures.meeting();
    const until = Date.now() + GENERATION_BUDGET_MS;
    for (const body of [{}, { template_id: 'daily_standup', language: 'en' }]) {
      const res = await regenerate(api, m.id, body, until);
      const code = (res.body as { error?: { code?: unknown } } | undefined)?.error?.code;
      if (res.status === 409 && code === 'summary_generating')
        return ctx.skip(
          `the meeting's summary was still being generated (409 summary_generating) after the suite's budget of ` +
            `${GENERATION_BUDGET_MS / 1000} s: a slow target or a loaded machine, not a refused regeneration`,
        );
      const clauses =
        Object.keys(body).length === 0 ? ['summary.regenerate.202', 'summary.regenerate.body-optional'] : ['summary.regenerate.202'];
      ctx.require(
        clauses,
        `POST /v1/meetings/{id}/summary/regenerate ${JSON.stringify(body)}`,
        x.all(
          x.status(res, 202),
          x.fields(
            res.body,
            { operation_id: 'string', wait_url: 'string', status_url: 'string', state: 'any', meeting_id: 'string', run_id: 'any?' },
            'RegenerateResponse',
          ),
        ),
        res,
      );
      const b = res.body as { operation_id: string; status_url: string; meeting_id: string };
      ctx.expect('summary.regenerate.202', 'meeting_id of the answer', x.equal(b.meeting_id, m.id, 'meeting_id'), res);
      const st = await api.get(`/v1/meetings/${m.id}/summary/operations/${b.operation_id}`);
      ctx.expect(
        'summary.operation.status',
        'GET /v1/meetings/{id}/summary/operations/{operation_id}',
        x.all(x.status(st, 200), x.json(st)),
        st,
      );
      const path = b.status_url.startsWith('http') ? new URL(b.status_url).pathname : b.status_url;
      if (path.startsWith('/')) {
        const viaUrl = await api.get(path);
        ctx.expect('summary.operation.status', 'GET status_url', x.status(viaUrl, 200), viaUrl);
      }
      // Let it finish before the next regenerate (a running one may be refused with 409 summary_generating).
      await settle(api, m.id, b.operation_id, until);
    }
    // Without the Control API, an empty transcript is what importing silence gives, if the target makes a meeting of it.
    let empty: { id: string };
    if (ctx.has('meetings')) empty = await ctx.fixtures.meeting({ segments: [], summary: null });
    else {
      const silent = await importSilentMeeting(ctx, `Silence ${ctx.fixtures.word(6)}`);
      if ('missing' in silent)
        return ctx.skip(
          `the empty-transcript part needs a meeting with an empty transcript: no Control API 'meetings' capability, and ${silent.missing}`,
        );
      empty = silent;
    }
    const res = await api.post(`/v1/meetings/${empty.id}/summary/regenerate`, { json: {} });
    ctx.expect(
      'summary.regenerate.empty-transcript.422',
      'POST …/summary/regenerate on a meeting with an empty transcript',
      x.status(res, 422),
      res,
    );
    ctx.expect('summary.regenerate.empty-transcript.422', 'its error envelope', x.envelope(res), res);
  },
});
