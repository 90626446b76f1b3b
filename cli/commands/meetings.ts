/** `mas meetings …`, `mas transcript` and `mas speaker-labels`: meetings, their transcripts and speaker names. */
import { writeFileSync } from 'node:fs';
import { fields, json, table, type Row } from '../output.ts';
import { UsageError } from '../settings.ts';
import { intArg, option, type TableRow } from '../command-table.ts';
import { fail, show } from '../context.ts';

/** mm:ss of a segment's start. */
function clock(seconds: number): string {
  const s = Math.floor(seconds);
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

export const MEETING_COMMANDS: readonly TableRow[] = [
  {
    name: 'meetings',
    description: 'list, read, rename, delete and export meetings',
    commands: [
      {
        name: 'list',
        description: 'meetings, newest first',
        options: [
          option('--limit <n>', 'meetings per page (1..200, default 50)', intArg('--limit', 0)),
          option('--offset <n>', 'meetings to skip', intArg('--offset', 0)),
        ],
        run: async (c, o: { limit?: number; offset?: number }) => {
          const r = await c.client.call('listMeetings', { query: { limit: o.limit, offset: o.offset }, signal: c.io.signal });
          show(
            c,
            r,
            (ok) =>
              table(ok.data.meetings as Row[], ['id', 'title', 'created_at', 'duration_seconds']) +
              `${ok.data.meetings.length} of ${ok.data.total}\n`,
          );
        },
      },
      {
        name: 'get',
        description: 'one meeting',
        args: [['<id>', 'meeting id']],
        run: async (c, id: string) =>
          show(c, await c.client.call('getMeeting', { path: { id }, signal: c.io.signal }), (r) => fields(r.data as Row)),
      },
      {
        name: 'rename',
        description: 'set the title (at most 500 characters)',
        args: [
          ['<id>', 'meeting id'],
          ['<title>', 'the new title'],
        ],
        run: async (c, id: string, title: string) =>
          show(c, await c.client.call('renameMeeting', { path: { id }, body: { title }, signal: c.io.signal }), (r) =>
            fields(r.data as Row),
          ),
      },
      {
        name: 'delete',
        description: 'delete a meeting with its transcript and summary; irreversible, so --yes is required',
        args: [['<id>', 'meeting id']],
        options: [option('--delete-files', 'also remove the recording file'), option('--yes', 'confirm the deletion')],
        run: async (c, id: string, o: { deleteFiles?: boolean; yes?: boolean }) => {
          if (o.yes !== true) throw new UsageError('deleting a meeting is irreversible: add --yes to confirm');
          const r = await c.client.call('deleteMeeting', {
            path: { id },
            query: { delete_files: o.deleteFiles === true },
            signal: c.io.signal,
          });
          show(c, r, (ok) => `deleted ${ok.data.id}${ok.data.files_deleted ? ' and its recording file' : ''}\n`);
        },
      },
      {
        name: 'export',
        description: 'export as Markdown, plain text or JSON (to stdout, or --out)',
        args: [['<id>', 'meeting id']],
        options: [
          { flags: '--format <format>', description: 'md, txt or json', choices: ['md', 'markdown', 'txt', 'text', 'json'], default: 'md' },
          option('--out <file>', 'write to this file instead of stdout'),
        ],
        run: async (c, id: string, o: { format: 'md' | 'markdown' | 'txt' | 'text' | 'json'; out?: string }) => {
          const r = await c.client.call('exportMeeting', { path: { id }, query: { format: o.format }, signal: c.io.signal });
          if (!r.ok) fail(c, r);
          const text = typeof r.data === 'string' ? r.data : json(r.data);
          if (o.out !== undefined) {
            writeFileSync(o.out, text);
            if (!c.asJson) c.io.stdout.write(`${o.out}\n`);
          } else {
            c.io.stdout.write(text);
          }
        },
      },
    ],
  },
  {
    name: 'transcript',
    description: "a meeting's transcript",
    args: [['<id>', 'meeting id']],
    run: async (c, id: string) =>
      show(c, await c.client.call('getTranscript', { path: { id }, signal: c.io.signal }), (r) =>
        r.data.segments.length === 0
          ? '(empty transcript)\n'
          : r.data.segments.map((s) => `[${clock(s.start)}] ${s.speaker_name ?? s.speaker}: ${s.text}`).join('\n') + '\n',
      ),
  },
  {
    name: 'speaker-labels',
    description: 'name speakers: KEY=NAME sets a label, KEY= removes it',
    args: [
      ['<id>', 'meeting id'],
      ['<labels...>', 'S1=Alice S2=Bob …'],
    ],
    run: async (c, id: string, pairs: string[]) => {
      const labels: Record<string, string | null> = {};
      for (const p of pairs) {
        const eq = p.indexOf('=');
        if (eq <= 0) throw new UsageError(`"${p}" is not KEY=NAME`);
        labels[p.slice(0, eq)] = p.slice(eq + 1) === '' ? null : p.slice(eq + 1);
      }
      show(c, await c.client.call('setSpeakerLabels', { path: { id }, body: { labels }, signal: c.io.signal }), (r) =>
        fields(r.data.labels as Row),
      );
    },
  },
];
