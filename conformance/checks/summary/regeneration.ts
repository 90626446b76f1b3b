/**
 * Regenerations the summary checks share: a re-send while a running one refuses another, and a poll until
 * one ends. A target's summaries may take any time (the spec states no maximum), so both wait within a budget.
 */
import type { BoundClient } from '../../harness/context-types.ts';
import type { HttpResult } from '../../harness/http.ts';

/**
 * How long a regeneration may take before the check stops waiting for it: the spec states no maximum, so
 * a target still generating when it runs out is slow, not wrong (the check then SKIPs, decision 081).
 */
export const GENERATION_BUDGET_MS = 60_000;
const ACTIVE = /running|queued|pending|generating/i;

/**
 * POST …/summary/regenerate, again while the answer is 409 summary_generating: a regeneration still running
 * (this check's earlier one, or the application's own summary) may refuse another until it ends (issue 36).
 */
export async function regenerate(api: BoundClient, meetingId: string, body: object, until: number): Promise<HttpResult> {
  for (;;) {
    const res = await api.post(`/v1/meetings/${meetingId}/summary/regenerate`, { json: body });
    const code = (res.body as { error?: { code?: unknown } } | undefined)?.error?.code;
    if (res.status !== 409 || code !== 'summary_generating' || Date.now() > until) return res;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Polls the operation until it has left the running states (or the budget ends). */
export async function settle(api: BoundClient, meetingId: string, operationId: string, until: number): Promise<void> {
  while (Date.now() <= until) {
    const s = await api.get(`/v1/meetings/${meetingId}/summary/operations/${operationId}`, { label: 'poll the operation until it ends' });
    if (s.status !== 200 || !ACTIVE.test(JSON.stringify((s.body as { state?: unknown } | undefined)?.state ?? ''))) return;
    await new Promise((r) => setTimeout(r, 250));
  }
}
