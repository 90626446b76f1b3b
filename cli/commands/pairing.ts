/** `mas pair request|status`: ask for a token from this device (no token needed). */
import { fields, type Row } from '../output.ts';
import { listArg, option, type TableRow } from '../command-table.ts';
import { show } from '../context.ts';

export const PAIRING_COMMANDS: readonly TableRow[] = [
  {
    name: 'pair',
    description: 'ask for a token from this device (no token needed); a person approves it in the application',
    commands: [
      {
        name: 'request',
        description: 'ask for a token',
        args: [['<client-name>', 'how the request is shown in the application']],
        options: [{ ...option('--scopes <scopes>', 'comma-separated: read, record, write', listArg), mandatory: true }],
        run: async (c, clientName: string, o: { scopes: string[] }) =>
          show(
            c,
            await c.client.call('requestPairing', { body: { client_name: clientName, scopes: o.scopes }, signal: c.io.signal }),
            (r) => fields(r.data as Row),
          ),
      },
      {
        name: 'status',
        description: 'poll a request; the first poll after approval shows the token, once',
        args: [['<id>', 'pairing id']],
        run: async (c, id: string) =>
          show(c, await c.client.call('getPairing', { path: { id }, signal: c.io.signal }), (r) => fields(r.data as Row)),
      },
    ],
  },
];
