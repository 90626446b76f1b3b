/** `mas summary …`: read, overwrite and regenerate a meeting's summary, and follow a regeneration. */
import type { Schemas } from '../../client/client.ts';
import { fields, json, type Row } from '../output.ts';
import { option, timeoutOption, type TableRow } from '../command-table.ts';
import { EXIT, Exit, dropUndefined, fail, readInput, show, type Context } from '../context.ts';
import { poll, untilEvent } from '../wait.ts';

function summaryText(s: Schemas['SummaryDto']): string {
  const head = fields(s, ['meeting_id', 'status', 'regeneration_failed', 'error', 'updated_at']);
  const result = s.result as Record<string, unknown> | null;
  const text = result !== null && typeof result['text'] === 'string' ? `\n${result['text']}\n` : result !== null ? `\n${json(result)}` : '';
  return head + text;
}

async function followSummary(c: Context, id: string, operationId: string, timeoutSeconds: number | undefined): Promise<void> {
  const path = { id, operation_id: operationId };
  const stopPolling = poll(c, async () => {
    const s = await c.client.call('getSummaryOperation', { path, signal: c.io.signal });
    return s.ok ? `Summary ${operationId}  ${s.data.state}` : undefined;
  });
  let event: string;
  try {
    event = await untilEvent(
      c,
      timeoutSeconds,
      (seconds) => c.client.wait('waitSummaryOperation', { path, query: { timeout_ms: seconds * 1000 }, signal: c.io.signal }),
      `summary operation ${operationId}`,
    );
  } finally {
    stopPolling();
  }
  const s = await c.client.call('getSummaryOperation', { path, signal: c.io.signal });
  if (!s.ok) fail(c, s);
  c.progress.done(`Summary ${operationId}  ${s.data.state}`);
  c.io.stdout.write(
    c.asJson ? json(s.data) : fields(s.data, ['operation_id', 'meeting_id', 'state', 'template_id', 'model', 'error', 'finished_at']),
  );
  if (event !== 'summary.completed') throw new Exit(EXIT.refused);
}

export const SUMMARY_COMMANDS: readonly TableRow[] = [
  {
    name: 'summary',
    description: "read, overwrite and regenerate a meeting's summary",
    commands: [
      {
        name: 'get',
        description: 'the stored summary',
        args: [['<id>', 'meeting id']],
        run: async (c, id: string) =>
          show(c, await c.client.call('getSummary', { path: { id }, signal: c.io.signal }), (r) => summaryText(r.data)),
      },
      {
        name: 'set',
        description: 'overwrite the summary (no undo) with TEXT, --file, or stdin',
        args: [
          ['<id>', 'meeting id'],
          ['[text]', 'the new summary text'],
        ],
        options: [option('--file <file>', "read the text from a file ('-' for stdin)")],
        run: async (c, id: string, text: string | undefined, o: { file?: string }) => {
          const body = text ?? (await readInput(c.io, o.file, 'the summary text'));
          show(c, await c.client.call('overwriteSummary', { path: { id }, body: { text: body }, signal: c.io.signal }), (r) =>
            summaryText(r.data),
          );
        },
      },
      {
        name: 'regenerate',
        description: 'start a regeneration; omitted options fall back to the stored configuration',
        args: [['<id>', 'meeting id']],
        options: [
          option('--model <model>', 'summarizer'),
          option('--model-name <name>', 'model name'),
          option('--template <id>', 'template id (default daily_standup)'),
          option('--language <tag>', 'language tag'),
          option('--wait', 'wait until the regeneration ends'),
          timeoutOption(true),
        ],
        run: async (
          c,
          id: string,
          o: { model?: string; modelName?: string; template?: string; language?: string; wait?: boolean; timeout?: number },
        ) => {
          const body = { model: o.model, model_name: o.modelName, template_id: o.template, language: o.language };
          const r = await c.client.call('regenerateSummary', { path: { id }, body: dropUndefined(body), signal: c.io.signal });
          if (!r.ok) fail(c, r);
          if (o.wait !== true)
            return void c.io.stdout.write(c.asJson ? json(r.data) : fields(r.data, ['operation_id', 'state', 'wait_url', 'status_url']));
          await followSummary(c, id, r.data.operation_id, o.timeout);
        },
      },
      {
        name: 'operation',
        description: 'the status of a regeneration',
        args: [
          ['<id>', 'meeting id'],
          ['<operation-id>', 'operation id from regenerate'],
        ],
        run: async (c, id: string, operationId: string) =>
          show(c, await c.client.call('getSummaryOperation', { path: { id, operation_id: operationId }, signal: c.io.signal }), (r) =>
            fields(r.data as Row),
          ),
      },
      {
        name: 'wait',
        description: 'wait for a regeneration to end',
        args: [
          ['<id>', 'meeting id'],
          ['<operation-id>', 'operation id from regenerate'],
        ],
        options: [timeoutOption(false)],
        run: async (c, id: string, operationId: string, o: { timeout?: number }) => followSummary(c, id, operationId, o.timeout),
      },
    ],
  },
];
