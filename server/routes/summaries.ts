/**
 * Summary regeneration: start an operation, read its status, wait for it.
 */
import type { HandlersFor } from '../app.ts';
import { openWaitStream } from '../http/sse.ts';

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
    const op = deps.summaries.operation(meetingId, operationId); // 404 before the stream opens
    const timeoutMs = ctx.query.timeout_ms;
    let unsubscribe = () => {};
    const stream = openWaitStream(res, {
      timeoutMs,
      timeoutData: { operation_id: operationId, timeout_ms: timeoutMs },
      onClose: () => unsubscribe(),
    });
    const settle = () => {
      const current = deps.summaries.operation(meetingId, operationId);
      if (current.state === 'succeeded') stream.resolve('summary.completed', current);
      else if (current.state === 'failed') stream.resolve('summary.failed', current);
    };
    unsubscribe = deps.summaries.onOperationEnd((id) => {
      if (id === operationId) settle();
    });
    if (op.state === 'succeeded' || op.state === 'failed') settle();
    return { streamed: true };
  },
} satisfies HandlersFor<'regenerateSummary' | 'getSummaryOperation' | 'waitSummaryOperation'>;
