import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadScript } from './scripts/load-script.ts';
import { assignVoices } from './synth/voices.ts';

const CLI = path.join(import.meta.dirname, 'cli.ts');
let dir = '';
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'cli-test-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

function cli(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: { ...process.env, SIMULATOR_CACHE_DIR: path.join(dir, 'cache') },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('simulator/cli.ts', () => {
  it('list: every script with speakers and estimated duration', () => {
    const r = cli('list');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^long-planning-session\s+4\s+\d+\s+3\d:\d\d\s+/m);
    assert.match(r.stdout, /^two-person-call\s+2\s+/m);
  });

  it('render: writes the format asked for and the truth beside it', async () => {
    const out = path.join(dir, 'tiny.ogg');
    const r = cli('render', 'tiny', `--out=${out}`);
    assert.equal(r.code, 0, r.stderr);
    const head = await readFile(out);
    assert.equal(head.toString('ascii', 0, 4), 'OggS');
    const truth = JSON.parse(await readFile(path.join(dir, 'tiny.truth.json'), 'utf8')) as {
      lines: { inserted?: string }[];
      voice_set: string;
      speakers: { engine: string }[];
      dynamics?: { profile: string; seed: number };
    };
    // The command line renders natural dynamics unless told otherwise (decision 108).
    assert.deepEqual(truth.dynamics, { profile: 'natural', seed: 1 });
    assert.equal(truth.lines.filter((l) => l.inserted === undefined).length, 2);
    assert.equal(truth.voice_set, 'natural');
    assert.deepEqual(
      truth.speakers.map((s) => s.engine),
      ['festival', 'flite'],
    );
    // The truth in standard formats beside it (simulator/truth-formats/).
    assert.match(await readFile(path.join(dir, 'tiny.rttm'), 'utf8'), /^SPEAKER tiny 1 0\.500 /);
    for (const ext of ['stm', 'ctm', 'seglst.json']) assert.ok((await readFile(path.join(dir, `tiny.${ext}`), 'utf8')).length > 0, ext);
  });

  it('render --voices espeak: every speaker speaks with espeak-ng', async () => {
    const out = path.join(dir, 'tiny-espeak.wav');
    const r = cli('render', 'tiny', `--out=${out}`, '--voices', 'espeak');
    assert.equal(r.code, 0, r.stderr);
    const truth = JSON.parse(await readFile(path.join(dir, 'tiny-espeak.truth.json'), 'utf8')) as {
      voice_set: string;
      speakers: { engine: string }[];
    };
    assert.equal(truth.voice_set, 'espeak');
    assert.deepEqual(
      truth.speakers.map((s) => s.engine),
      ['espeak', 'espeak'],
    );
  });

  it('help names the voice sets, with an example', () => {
    const r = cli('help');
    assert.equal(r.code, 0);
    assert.match(r.stdout, /--voices natural\|espeak/);
    assert.match(r.stdout, /--dynamics natural\|tidy/);
    assert.match(r.stdout, /render two-person-call --out call\.wav --voices espeak/);
  });

  it('exits 2 with the usage for a bad command line', () => {
    for (const args of [
      [],
      ['dance'],
      ['render', 'tiny'],
      ['render', 'tiny', '--out', 'x.opus'],
      ['render', 'tiny', '--out', 'x.wav', '--format', 'aiff'],
      ['render', 'tiny', '--out', 'x.wav', '--bogus'],
      ['render', 'tiny', '--out', 'x.wav', '--voices', 'robot'],
      ['broken'],
    ]) {
      const r = cli(...args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /^error: .*\n\nUsage:/s);
    }
  });

  it('exits 1 when the work fails, naming the cause', () => {
    const r = cli('render', 'no-such-meeting', `--out=${path.join(dir, 'x.wav')}`);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no such file \(known scripts: /);
  });

  it('help exits 0 and lists the scene options and presets', () => {
    const r = cli('--help');
    assert.equal(r.code, 0);
    assert.match(r.stdout, /Usage:/);
    for (const flag of ['--scene', '--rt60', '--drr', '--noise', '--interruptions', '--channel', '--distance', '--gain', '--seed'])
      assert.ok(r.stdout.includes(flag), flag);
    for (const preset of ['clean:', 'office:', 'hard:', 'noise-only:', 'reverb-only:']) assert.ok(r.stdout.includes(preset), preset);
  });

  it('render with scene flags: the truth records the scene and seed; same flags, same bytes; words unchanged', async () => {
    const render = (name: string, ...flags: string[]) => {
      const out = path.join(dir, `${name}.wav`);
      const r = cli('render', 'tiny', `--out=${out}`, ...flags);
      assert.equal(r.code, 0, r.stderr);
      return out;
    };
    // Tidy dynamics: the natural ones draw with the seed, and this compares two seeds' words.
    const a = render('scene-a', '--scene', 'office', '--noise', 'keyboard:20', '--channel', 'opus:12', '--seed', '3', '--dynamics=tidy');
    const b = render('scene-b', '--scene', 'office', '--noise', 'keyboard:20', '--channel', 'opus:12', '--seed', '3', '--dynamics=tidy');
    const clean = render('scene-clean', '--dynamics=tidy');
    assert.deepEqual(await readFile(a), await readFile(b));
    const truthOf = async (name: string) =>
      JSON.parse(await readFile(path.join(dir, `${name}.truth.json`), 'utf8')) as {
        words: unknown[];
        scene: { preset: string; seed: number; room: unknown; noise: unknown[]; channel: unknown[] };
      };
    const truth = await truthOf('scene-a');
    assert.equal(truth.scene.preset, 'office');
    assert.equal(truth.scene.seed, 3);
    assert.deepEqual(truth.scene.room, { rt60: 0.4, drr_db: 3 });
    assert.deepEqual(truth.scene.noise, [{ type: 'keyboard', snr_db: 20 }]);
    assert.deepEqual(truth.scene.channel, [{ type: 'opus', kbps: 12 }]);
    assert.deepEqual(truth.words, (await truthOf('scene-clean')).words);
    assert.equal((await truthOf('scene-clean')).scene.preset, 'clean');
    assert.notDeepEqual(await readFile(a), await readFile(clean));
  });

  it('render --dynamics tidy writes no dynamics field; an unknown profile exits 2 before rendering', async () => {
    const out = path.join(dir, 'tiny-tidy.wav');
    const r = cli('render', 'tiny', `--out=${out}`, '--dynamics', 'tidy');
    assert.equal(r.code, 0, r.stderr);
    const truth = JSON.parse(await readFile(path.join(dir, 'tiny-tidy.truth.json'), 'utf8')) as { turns: unknown[]; dynamics?: unknown };
    assert.equal(truth.dynamics, undefined);
    assert.equal(truth.turns.length, 2);
    const bad = cli('render', 'tiny', `--out=${path.join(dir, 'never.wav')}`, '--dynamics', 'chaotic');
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--dynamics expects one of natural, tidy, got "chaotic"/);
  });

  it('render --cast-seed records the seed in the truth and casts from it; without it no cast_seed; a bad seed exits 2', async () => {
    type CastTruth = { cast_seed?: number; speakers: { engine: string; voice: string; pitch_shift: number }[] };
    const truthOf = async (name: string, ...flags: string[]): Promise<CastTruth> => {
      const r = cli('render', 'tiny', `--out=${path.join(dir, `${name}.wav`)}`, '--dynamics=tidy', ...flags);
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(await readFile(path.join(dir, `${name}.truth.json`), 'utf8')) as CastTruth;
    };
    const cast = await truthOf('cast-3', '--cast-seed=3');
    assert.equal(cast.cast_seed, 3);
    assert.deepEqual(
      cast.speakers.map((s) => ({ engine: s.engine, voice: s.voice, pitch_shift: s.pitch_shift })),
      assignVoices((await loadScript('tiny')).speakers, 'natural', 3).map((v) => ({
        engine: v.engine,
        voice: v.voice,
        pitch_shift: v.pitch_shift,
      })),
    );
    assert.equal((await truthOf('cast-none')).cast_seed, undefined);
    for (const bad of ['--cast-seed=x', '--cast-seed=-1', '--cast-seed=1.5', '--cast-seed=4294967296', '--cast-seed=']) {
      const r = cli('render', 'tiny', `--out=${path.join(dir, 'never.wav')}`, bad);
      assert.equal(r.code, 2, `${bad}: ${r.stderr}`);
      assert.match(r.stderr, /--cast-seed expects an integer from 0 to 4294967295/);
    }
  });

  it('people lists the recurring people with their voices', () => {
    const r = cli('people');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^raj {5}Raj Patel {8}flite:rms −3 st, 148 wpm$/m);
    assert.equal(r.stdout.trim().split('\n').length, 8);
    assert.equal(cli('people', 'x').code, 2);
  });

  it('render --people names the people in the truth and its RTTM; an unknown person or too many exit 2', async () => {
    const r = cli('render', 'tiny', `--out=${path.join(dir, 'people.wav')}`, '--dynamics=tidy', '--people=,sofia');
    assert.equal(r.code, 0, r.stderr);
    const truth = JSON.parse(await readFile(path.join(dir, 'people.truth.json'), 'utf8')) as {
      speakers: { name: string; person?: string }[];
    };
    assert.deepEqual(
      truth.speakers.map((s) => [s.name, s.person]),
      [
        ['Alice Moreau', undefined],
        ['Sofia Ruiz', 'sofia'],
      ],
    );
    assert.match(await readFile(path.join(dir, 'people.rttm'), 'utf8'), / sofia <NA> <NA>/);
    for (const [flag, message] of [
      ['--people=zoe', /--people: unknown person "zoe"/],
      ['--people=raj,dana,hiro', /--people names 3 people; the script has 2 speakers/],
    ] as const) {
      const bad = cli('render', 'tiny', `--out=${path.join(dir, 'never.wav')}`, flag);
      assert.equal(bad.code, 2, bad.stderr);
      assert.match(bad.stderr, message);
    }
  });

  it('a bad scene flag exits 2 naming the flag', () => {
    for (const flags of [
      ['--scene', 'attic'],
      ['--noise', 'pink'],
      ['--channel', 'fax'],
      ['--rt60', 'x'],
      ['--seed', '1.5'],
      ['--seed=-2'],
      ['--drr', '3'],
      ['--rt60', '9'],
    ]) {
      const r = cli('render', 'tiny', `--out=${path.join(dir, 'bad.wav')}`, ...flags);
      assert.equal(r.code, 2, `${flags.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /^error: (scene|--)/);
    }
  });
});
