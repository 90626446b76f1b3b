/** `mas recording …`: live capture of real microphone and/or system audio. */
import { fields, json, type Row } from '../output.ts';
import { option, timeoutOption, type CommandRow, type TableRow } from '../command-table.ts';
import { EXIT, Exit, dropUndefined, fail, show, type Context } from '../context.ts';
import { untilEvent } from '../wait.ts';

const RECORDING_FIELDS = ['state', 'active_meeting_id', 'session_id', 'meeting_name', 'captured_seconds', 'last_meeting_id', 'last_error'];

async function followRecording(c: Context, until: 'started' | 'stopped', timeoutSeconds: number | undefined): Promise<void> {
  c.progress.update(`Waiting until recording has ${until}…`, true);
  const event = await untilEvent(
    c,
    timeoutSeconds,
    (seconds) => c.client.wait('waitRecording', { query: { until, timeout: seconds }, signal: c.io.signal }),
    `recording ${until}`,
  );
  const r = await c.client.call('getRecording', { signal: c.io.signal });
  if (!r.ok) fail(c, r);
  c.progress.done(`Recording ${r.data.state}`);
  c.io.stdout.write(c.asJson ? json(r.data) : fields(r.data, RECORDING_FIELDS));
  if (event !== `recording.${until}`) throw new Exit(EXIT.refused);
}

/** pause, resume: no arguments, the recorder out. */
const RECORDING_CONTROLS: readonly CommandRow[] = (
  [
    ['pause', 'pauseRecording', 'pause capture, keeping the recording'],
    ['resume', 'resumeRecording', 'resume a paused recording'],
  ] as const
).map(([name, op, description]) => ({
  name,
  description,
  run: async (c: Context) => show(c, await c.client.call(op, { signal: c.io.signal }), (r) => fields(r.data as Row, RECORDING_FIELDS)),
}));

export const RECORDING_COMMANDS: readonly TableRow[] = [
  {
    name: 'recording',
    description: 'live capture of real microphone and/or system audio',
    commands: [
      {
        name: 'status',
        description: 'the recorder state',
        run: async (c) =>
          show(c, await c.client.call('getRecording', { signal: c.io.signal }), (r) => fields(r.data as Row, RECORDING_FIELDS)),
      },
      {
        name: 'start',
        description: 'start recording now (answers with state starting); --wait until capture is up',
        options: [
          option('--name <title>', 'meeting name'),
          option('--mic <device>', 'microphone device name (see `mas devices`)'),
          option('--system <device>', 'system audio device name'),
          option('--wait', 'wait until recording has started'),
          timeoutOption(true),
        ],
        run: async (c, o: { name?: string; mic?: string; system?: string; wait?: boolean; timeout?: number }) => {
          const body = dropUndefined({ meeting_name: o.name, mic_device_name: o.mic, system_device_name: o.system });
          const r = await c.client.call('startRecording', { body, signal: c.io.signal });
          if (!r.ok) fail(c, r);
          if (o.wait !== true) return void c.io.stdout.write(c.asJson ? json(r.data) : fields(r.data, RECORDING_FIELDS));
          await followRecording(c, 'started', o.timeout);
        },
      },
      ...RECORDING_CONTROLS,
      {
        name: 'stop',
        description: 'stop and finalize the recording; --wait until it is idle',
        options: [option('--wait', 'wait until recording has stopped'), timeoutOption(true)],
        run: async (c, o: { wait?: boolean; timeout?: number }) => {
          const r = await c.client.call('stopRecording', { signal: c.io.signal });
          if (!r.ok) fail(c, r);
          if (o.wait !== true) return void c.io.stdout.write(c.asJson ? json(r.data) : fields(r.data, RECORDING_FIELDS));
          await followRecording(c, 'stopped', o.timeout);
        },
      },
      {
        name: 'wait',
        description: 'wait until recording has started or stopped',
        options: [
          { flags: '--until <transition>', description: 'started or stopped', choices: ['started', 'stopped'], mandatory: true },
          timeoutOption(false),
        ],
        run: async (c, o: { until: 'started' | 'stopped'; timeout?: number }) => followRecording(c, o.until, o.timeout),
      },
    ],
  },
];
