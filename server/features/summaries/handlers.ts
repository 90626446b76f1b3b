/**
 * Summary regeneration: start an operation, read its status, wait for it.
 */
import type { HandlersFor } from '../../http-types.ts';
import type { EventBus } from '../../kernel/events.ts';
import { waitOnBus } from '../../kernel/sse-wait.ts';
import type { SummaryService } from './service.ts';

/** The services the summary routes use, and nothing else (built by server/deps.ts). */
export interface SummariesDeps {
  summaries: SummaryService;
  /** The operation wait listens to it. */
  bus: EventBus;
}

function ids(ctx: { params: { readonly id: string; readonly operation_id: string } }): { meetingId: string; operationId: string } {
  return { meetingId: ctx.params.id, operationId: ctx.params.operation_id };
}

export const summaryHandlers = {
  regenerateSummary: (ctx) => {
    const op = ctx.deps.summaries.regenerate(ctx.params.id, ctx.body ?? {});
    return { status: 202, json: op };
  },

  getSummaryOperation: (ctx) => {
    const { meetingId, operationId } = ids(ctx);
    return { status: 200, json: ctx.deps.summaries.operation(meetingId, operationId) };
  },

  waitSummaryOperation: (ctx) => {
    const { deps, res } = ctx;
    const { meetingId, operationId } = ids(ctx);
    deps.summaries.operation(meetingId, operationId); // 404 before the stream opens
    const timeoutMs = ctx.query.timeout_ms;
    return waitOnBus({
      res,
      bus: deps.bus,
      timeoutMs,
      timeoutData: { operation_id: operationId, timeout_ms: timeoutMs },
      settle: (e) => {
        if (e !== null && !(e.event === 'summary.operation.ended' && e.operation_id === operationId)) return null;
        const current = deps.summaries.operation(meetingId, operationId);
        if (current.state === 'succeeded') return { event: 'summary.completed', data: current };
        if (current.state === 'failed') return { event: 'summary.failed', data: current };
        return null;
      },
    });
  },
} satisfies HandlersFor<'regenerateSummary' | 'getSummaryOperation' | 'waitSummaryOperation', SummariesDeps>;
