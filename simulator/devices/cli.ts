/**
 * `node simulator/cli.ts devices …`: the simulator's devices, driven through
 * the running gateway's Control API (CONTROL.md, Devices), the same code the
 * conformance suite and the settings page reach. A thin client: the devices
 * themselves (PulseAudio sinks, players) live in the gateway process.
 *
 *   devices list
 *   devices plug <name> --type input|output [--script <name>|none]
 *   devices unplug <name>
 *   devices fail <name> [--error <text>]
 *   devices meeting-app <device> --app-name <name> --binary <name> --seconds <n> [--drop-after <s> --drop-for <s>]
 *   devices meeting-apps
 *   devices hang-up <id>
 *
 * Where: --control-url (or MAS_CONTROL_URL, default http://127.0.0.1:8429);
 * secret: --secret (or MAS_CONTROL_SECRET), else the file --secret-file
 * (default <MAS_DATA_DIR or ./data>/control-secret).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SceneError } from '../scenes/scene.ts';
import { SCENE_FLAG_OPTIONS, hasSceneFlags, sceneFromFlags, seedFlag } from '../scenes/scene-flags.ts';

export const DEVICES_USAGE = `  node simulator/cli.ts devices list
  node simulator/cli.ts devices plug <name> --type input|output [--script <fixture>|none] [scene flags as for render]
  node simulator/cli.ts devices unplug <name>
  node simulator/cli.ts devices fail <name> [--error <text>]
  node simulator/cli.ts devices meeting-app <device> --app-name <name> --binary <name> --seconds <n>
                                            [--drop-after <s> --drop-for <s>]
  node simulator/cli.ts devices meeting-apps
  node simulator/cli.ts devices hang-up <id>
      Simulated devices of a running gateway, through its Control API:
      a PulseAudio null sink fed in real time with a fixture script (or silence),
      or an in-process device where PulseAudio cannot run. A meeting app holds
      a capture stream on an input device (PulseAudio only) under the name and
      binary given, for --seconds, while the device plays its script from the
      start; --drop-after/--drop-for close the stream for a while mid-call.
      --control-url  default $MAS_CONTROL_URL or http://127.0.0.1:8429
      --secret       default $MAS_CONTROL_SECRET, else read from --secret-file
      --secret-file  default <$MAS_DATA_DIR or ./data>/control-secret`;

/** A mistake on the command line (exit code 2). */
export class DevicesUsageError extends Error {}

const CONNECTION_OPTIONS = {
  'control-url': { type: 'string' },
  secret: { type: 'string' },
  'secret-file': { type: 'string' },
} as const;

interface Connection {
  url: string;
  secret: string;
}

interface DeviceDetail {
  name: string;
  device_type: string;
  script: string | null;
  transport: string | null;
  state: string;
  error: string | null;
  sink: string | null;
  playback: { cued: boolean; played_seconds: number; script_seconds: number; finished: boolean };
}

async function connection(values: { 'control-url'?: string; secret?: string; 'secret-file'?: string }): Promise<Connection> {
  const url = (values['control-url'] ?? process.env['MAS_CONTROL_URL'] ?? 'http://127.0.0.1:8429').replace(/\/+$/, '');
  let secret = values.secret ?? process.env['MAS_CONTROL_SECRET'];
  if (secret === undefined) {
    const file = values['secret-file'] ?? path.join(process.env['MAS_DATA_DIR'] ?? './data', 'control-secret');
    try {
      secret = (await readFile(file, 'utf8')).trim();
    } catch {
      throw new DevicesUsageError(
        `no control secret: give --secret, set MAS_CONTROL_SECRET, or point --secret-file at the gateway's control-secret file (tried ${file})`,
      );
    }
  }
  return { url, secret };
}

async function call(c: Connection, method: string, route: string, body?: unknown): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(`${c.url}${route}`, {
      method,
      headers: { Authorization: `Bearer ${c.secret}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch (err) {
    throw new Error(`cannot reach the Control API at ${c.url} (is the gateway running with --control?): ${(err as Error).message}`, {
      cause: err,
    });
  }
  const text = await res.text();
  const parsed: unknown = text === '' ? null : JSON.parse(text);
  if (!res.ok) {
    const e = (parsed as { error?: { code?: string; message?: string } } | null)?.error;
    throw new Error(`${method} ${route} → ${res.status} ${e?.code ?? ''}: ${e?.message ?? text.slice(0, 200)}`);
  }
  return parsed;
}

const enc = (name: string) => encodeURIComponent(name);

export async function devicesCommand(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'list': {
      const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: CONNECTION_OPTIONS });
      if (positionals.length > 0) throw new DevicesUsageError('devices list takes no arguments');
      const c = await connection(values);
      const { devices } = (await call(c, 'GET', '/control/devices')) as { devices: { name: string }[] };
      const rows = [['name', 'type', 'script', 'transport', 'state', 'playback']];
      for (const d of devices) {
        const v = (await call(c, 'GET', `/control/devices/${enc(d.name)}`)) as DeviceDetail;
        const playback = v.playback.cued
          ? `${v.playback.played_seconds.toFixed(1)}/${v.playback.script_seconds.toFixed(1)} s${v.playback.finished ? ' (done)' : ''}`
          : 'not cued';
        rows.push([
          v.name,
          v.device_type,
          v.script ?? 'silence',
          v.transport ?? '-',
          v.state + (v.error !== null ? ` (${v.error})` : ''),
          playback,
        ]);
      }
      if (devices.length === 0) {
        console.log('no simulated devices plugged in');
        return;
      }
      const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
      for (const r of rows) console.log(r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '));
      return;
    }
    case 'plug': {
      const { values, positionals } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: { ...CONNECTION_OPTIONS, type: { type: 'string' }, script: { type: 'string' }, ...SCENE_FLAG_OPTIONS },
      });
      if (positionals.length !== 1) throw new DevicesUsageError('devices plug expects one device name');
      if (values.type !== 'input' && values.type !== 'output')
        throw new DevicesUsageError('devices plug needs --type input or --type output');
      const script = values.script === undefined || values.script === 'none' ? null : values.script;
      let scene: Record<string, unknown> = {};
      try {
        // The gateway resolves the preset; the flags only say what to change.
        const seed = seedFlag(values);
        if (hasSceneFlags({ ...values, seed: undefined })) scene = { scene: sceneFromFlags(values) };
        if (seed !== undefined) scene = { ...scene, seed };
      } catch (err) {
        if (err instanceof SceneError) throw new DevicesUsageError(err.message);
        throw err;
      }
      const c = await connection(values);
      await call(c, 'POST', '/control/devices', { name: positionals[0], device_type: values.type, script, ...scene });
      console.log(
        `plugged in ${values.type} "${positionals[0]}" playing ${script ?? 'silence'}${scene.scene !== undefined ? ` in scene ${JSON.stringify(scene.scene)}` : ''}`,
      );
      return;
    }
    case 'unplug':
    case 'fail': {
      const { values, positionals } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: { ...CONNECTION_OPTIONS, error: { type: 'string' } },
      });
      if (positionals.length !== 1) throw new DevicesUsageError(`devices ${sub} expects one device name`);
      if (sub === 'unplug' && values.error !== undefined) throw new DevicesUsageError('--error goes with devices fail');
      const c = await connection(values);
      const name = positionals[0]!;
      if (sub === 'unplug') {
        await call(c, 'DELETE', `/control/devices/${enc(name)}`);
        console.log(`unplugged "${name}"`);
      } else {
        const v = (await call(
          c,
          'POST',
          `/control/devices/${enc(name)}/fail`,
          values.error !== undefined ? { error: values.error } : {},
        )) as DeviceDetail;
        console.log(`"${name}" failed: ${v.error ?? ''}`);
      }
      return;
    }
    case 'meeting-app':
    case 'meeting-apps':
    case 'hang-up':
      await meetingAppCommand(sub, rest);
      return;
    case undefined:
      throw new DevicesUsageError('devices needs a subcommand: list, plug, unplug, fail, meeting-app, meeting-apps or hang-up');
    default:
      throw new DevicesUsageError(`unknown devices subcommand "${sub}"`);
  }
}

interface MeetingAppDetail {
  id: string;
  device: string;
  app_name: string;
  binary: string;
  seconds: number;
  state: string;
  error: string | null;
}

/** A number of seconds from a flag, or a usage error naming the flag. */
function secondsFlag(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new DevicesUsageError(`--${flag} expects a number of seconds, got "${value}"`);
  return n;
}

async function meetingAppCommand(sub: 'meeting-app' | 'meeting-apps' | 'hang-up', rest: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      ...CONNECTION_OPTIONS,
      'app-name': { type: 'string' },
      binary: { type: 'string' },
      seconds: { type: 'string' },
      'drop-after': { type: 'string' },
      'drop-for': { type: 'string' },
    },
  });
  if (sub === 'meeting-apps') {
    if (positionals.length > 0) throw new DevicesUsageError('devices meeting-apps takes no arguments');
    const { meeting_apps } = (await call(await connection(values), 'GET', '/control/meeting-apps')) as { meeting_apps: MeetingAppDetail[] };
    if (meeting_apps.length === 0) console.log('no meeting apps started');
    for (const a of meeting_apps)
      console.log(
        `${a.id}  ${a.app_name} (${a.binary}) on "${a.device}", ${a.seconds} s: ${a.state}${a.error !== null ? ` (${a.error})` : ''}`,
      );
    return;
  }
  if (positionals.length !== 1)
    throw new DevicesUsageError(`devices ${sub} expects one ${sub === 'hang-up' ? 'meeting app id' : 'device name'}`);
  if (sub === 'hang-up') {
    await call(await connection(values), 'DELETE', `/control/meeting-apps/${enc(positionals[0]!)}`);
    console.log(`hung up ${positionals[0]!}`);
    return;
  }
  const seconds = secondsFlag('seconds', values.seconds);
  if (values['app-name'] === undefined || values.binary === undefined || seconds === undefined)
    throw new DevicesUsageError('devices meeting-app needs --app-name, --binary and --seconds');
  const after = secondsFlag('drop-after', values['drop-after']);
  const dropFor = secondsFlag('drop-for', values['drop-for']);
  if ((after === undefined) !== (dropFor === undefined)) throw new DevicesUsageError('--drop-after and --drop-for go together');
  const c = await connection(values);
  const app = (await call(c, 'POST', '/control/meeting-apps', {
    device: positionals[0],
    app_name: values['app-name'],
    binary: values.binary,
    seconds,
    ...(after !== undefined && dropFor !== undefined ? { drop: { after, seconds: dropFor } } : {}),
  })) as MeetingAppDetail;
  console.log(`${app.id}: ${app.app_name} (${app.binary}) in a call on "${app.device}" for ${app.seconds} s`);
}
