/** `mas config get|set`: read or replace one configuration section. */
import type { Schemas } from '../../client/client.ts';
import { CONFIG_SECTIONS, type ConfigSection } from '../../client/spec-values.ts';
import { cell, json } from '../output.ts';
import { UsageError } from '../settings.ts';
import type { TableRow } from '../command-table.ts';
import { readInput, show } from '../context.ts';

function configText(c: Schemas['ConfigDto']): string {
  return `section: ${c.section}\n${json(c.config)}${c.withheld.length > 0 ? `withheld: ${c.withheld.map(cell).join(', ')}\n` : ''}`;
}

export const CONFIG_COMMANDS: readonly TableRow[] = [
  {
    name: 'config',
    description: `read or replace one configuration section (${CONFIG_SECTIONS.join(', ')})`,
    commands: [
      {
        name: 'get',
        description: 'one section',
        args: [['<section>', 'section name']],
        run: async (c, section: string) =>
          show(c, await c.client.call('getConfigSection', { path: { section: section as ConfigSection }, signal: c.io.signal }), (r) =>
            configText(r.data),
          ),
      },
      {
        name: 'set',
        description: 'replace the whole section with a JSON object from FILE or stdin: omitted fields are dropped, not kept',
        args: [
          ['<section>', 'section name'],
          ['[file]', "JSON file ('-' or none: stdin)"],
        ],
        run: async (c, section: string, file: string | undefined) => {
          const text = await readInput(c.io, file ?? '-', 'the section JSON');
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch (err) {
            throw new UsageError(`the section is not valid JSON: ${(err as Error).message}`);
          }
          const r = await c.client.call('replaceConfigSection', {
            path: { section: section as ConfigSection },
            body: body as Schemas['ConfigSectionBody'],
            signal: c.io.signal,
          });
          show(c, r, (ok) => configText(ok.data));
        },
      },
    ],
  },
];
