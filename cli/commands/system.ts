/** `mas health|whoami|openapi|search|devices|models`: the service itself, search, devices and models. */
import { fields, json, table, type Row } from '../output.ts';
import { intArg, option, type TableRow } from '../command-table.ts';
import { fail, show } from '../context.ts';

/** Nested objects (the health counters) as dotted keys, one line each. */
function flatten(obj: Row, prefix = ''): Row {
  const out: Row = {};
  for (const [k, v] of Object.entries(obj)) {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) Object.assign(out, flatten(v as Row, `${prefix}${k}.`));
    else out[`${prefix}${k}`] = v;
  }
  return out;
}

export const SYSTEM_COMMANDS: readonly TableRow[] = [
  {
    name: 'health',
    description: 'liveness, version and counters (no token needed)',
    run: async (c) => show(c, await c.client.call('getHealth', { signal: c.io.signal }), (r) => fields(flatten(r.data as Row))),
  },
  {
    name: 'whoami',
    description: "the token's id, scopes and license tier",
    run: async (c) => show(c, await c.client.call('getWhoami', { signal: c.io.signal }), (r) => fields(r.data as Row)),
  },
  {
    name: 'openapi',
    description: "the service's OpenAPI 3.1 document (always JSON)",
    run: async (c) => {
      const r = await c.client.call('getOpenApi', { signal: c.io.signal });
      if (!r.ok) fail(c, r);
      c.io.stdout.write(json(r.data));
    },
  },
  {
    name: 'search',
    description: 'full-text search over titles and transcripts',
    args: [['<words...>', 'what to find']],
    options: [
      option('--limit <n>', 'results per page (1..200, default 50)', intArg('--limit', 0)),
      option('--offset <n>', 'results to skip', intArg('--offset', 0)),
    ],
    run: async (c, words: string[], o: { limit?: number; offset?: number }) => {
      const r = await c.client.call('searchMeetings', {
        query: { q: words.join(' '), limit: o.limit, offset: o.offset },
        signal: c.io.signal,
      });
      show(c, r, (ok) => table(ok.data.results as Row[], ['meeting_id', 'title', 'timestamp', 'match_context']));
    },
  },
  {
    name: 'devices',
    description: 'audio input and output devices',
    run: async (c) =>
      show(c, await c.client.call('listDevices', { signal: c.io.signal }), (r) => table(r.data.devices as Row[], ['name', 'device_type'])),
  },
  {
    name: 'models',
    description: 'speech recognition models on this machine',
    run: async (c) =>
      show(c, await c.client.call('listModels', { signal: c.io.signal }), (r) =>
        table(r.data.models as Row[], ['name', 'size_mb', 'accuracy', 'speed', 'status', 'is_custom']),
      ),
  },
];
