/** `mas webhooks …`: register and inspect webhooks. */
import { fields, table, type Row } from '../output.ts';
import { listArg, option, type TableRow } from '../command-table.ts';
import { dropUndefined, show } from '../context.ts';

export const WEBHOOK_COMMANDS: readonly TableRow[] = [
  {
    name: 'webhooks',
    description: 'register and inspect webhooks (the application must have webhook delivery on)',
    commands: [
      {
        name: 'create',
        description: 'register a webhook; prints its signing secret this once',
        args: [['<url>', 'http:// or https:// destination']],
        options: [
          { ...option('--events <names>', 'comma-separated event names, e.g. job.completed,summary.completed', listArg), mandatory: true },
          { flags: '--mode <mode>', description: 'delivery mode', choices: ['at-least-once', 'at-most-once'] },
          option('--secret <secret>', 'your own signing secret (16 to 256 visible characters); generated when omitted'),
        ],
        run: async (c, url: string, o: { events: string[]; mode?: 'at-least-once' | 'at-most-once'; secret?: string }) => {
          const body = dropUndefined({ url, events: o.events, delivery_mode: o.mode, secret: o.secret });
          show(c, await c.client.call('createWebhook', { body: body, signal: c.io.signal }), (r) => fields(r.data as Row));
        },
      },
      {
        name: 'list',
        description: "the caller's webhooks",
        options: [option('--all', "every owner's webhooks (delete scope and a first-party token)")],
        run: async (c, o: { all?: boolean }) =>
          show(c, await c.client.call('listWebhooks', { query: { all: o.all === true }, signal: c.io.signal }), (r) =>
            table(r.data.webhooks as Row[], ['id', 'url', 'events', 'delivery_mode', 'approval_state']),
          ),
      },
      {
        name: 'get',
        description: 'one webhook with its approval state',
        args: [['<id>', 'webhook id']],
        run: async (c, id: string) =>
          show(c, await c.client.call('getWebhook', { path: { id }, signal: c.io.signal }), (r) => fields(r.data as Row)),
      },
      {
        name: 'delete',
        description: 'delete an owned webhook and its delivery log',
        args: [['<id>', 'webhook id']],
        run: async (c, id: string) =>
          show(c, await c.client.call('deleteWebhook', { path: { id }, signal: c.io.signal }), (r) => `deleted ${r.data.id}\n`),
      },
      {
        name: 'deliveries',
        description: 'the delivery log: the most recent 100 entries',
        args: [['<id>', 'webhook id']],
        run: async (c, id: string) =>
          show(c, await c.client.call('listWebhookDeliveries', { path: { id }, signal: c.io.signal }), (r) =>
            table(r.data.deliveries as Row[], ['occurred_at', 'event', 'attempt', 'delivered', 'reason', 'status_code', 'detail']),
          ),
      },
      {
        name: 'test',
        description: 'send one webhook.test delivery (single attempt) if the destination is approved',
        args: [['<id>', 'webhook id']],
        run: async (c, id: string) =>
          show(c, await c.client.call('testWebhook', { path: { id }, signal: c.io.signal }), (r) => fields(r.data as Row)),
      },
    ],
  },
];
