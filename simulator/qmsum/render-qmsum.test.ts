import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO_ROOT } from '../scripts/load-script.ts';
import { lineWords } from '../scripts/meeting-script.ts';
import { parseWav } from '../../common/audio/wav.ts';
import { cleanQmsumText } from './qmsum-meeting.ts';
import { renderQmsum } from './render-qmsum.ts';
import type { RenderedQmsumMeeting } from './render-qmsum.ts';
import { loadQmsumMeeting } from './qmsum-source.ts';
import type { LoadedQmsumMeeting } from './qmsum-source.ts';

const EXCERPT = path.join(REPO_ROOT, 'fixtures', 'qmsum', 'val', 'ES2006a-excerpt.json');
const CLI = path.join(REPO_ROOT, 'simulator', 'cli.ts');
/** The excerpt's first turns: a markup-only turn, then three participants, a filler, a repetition ("the the") and dropped marks. */
const TURNS = 8;

let dir = '';
let cacheDir = '';
let loaded: LoadedQmsumMeeting;
let result: RenderedQmsumMeeting;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'render-qmsum-test-'));
  cacheDir = path.join(dir, 'cache');
  loaded = await loadQmsumMeeting(EXCERPT);
  result = await renderQmsum(loaded, path.join(dir, 'es.wav'), { cacheDir, turns: TURNS });
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('renderQmsum: the vendored ES2006a excerpt, first turns, real voices', () => {
  it('writes a 16 kHz mono WAV as long as the truth says', async () => {
    const pcm = parseWav(await readFile(result.wav));
    assert.equal(pcm.sampleRate, 16_000);
    assert.equal(pcm.channels, 1);
    assert.ok(Math.abs(pcm.samples.length / pcm.sampleRate - result.duration) < 0.01);
    assert.ok(result.duration > 20, `${result.duration} s`);
  });

  it('speaks every participant of the turns with their own natural voice', () => {
    const { speakers } = result.truth;
    assert.deepEqual(
      speakers.map((s) => s.name),
      ['Project Manager', 'User Interface', 'Industrial Designer'],
    );
    assert.equal(new Set(speakers.map((s) => `${s.engine}:${s.voice}`)).size, speakers.length);
    assert.ok(speakers.every((s) => s.engine === 'flite' || s.engine === 'festival'));
  });

  it('speaks the turns in order, markup dropped and disfluencies kept, every word once', () => {
    const turns = loaded.data.meeting_transcripts.slice(0, TURNS);
    const spoken = turns.map((t) => cleanQmsumText(t.content)).filter((t) => t !== '');
    assert.deepEqual(
      result.truth.lines.map((l) => l.text),
      spoken,
    );
    const byName = new Map(result.truth.speakers.map((s) => [s.key, s.name]));
    assert.deepEqual(
      result.truth.lines.map((l) => byName.get(l.speaker)),
      turns.filter((t) => cleanQmsumText(t.content) !== '').map((t) => t.speaker),
    );
    const words = result.truth.words.map((w) => w.text);
    assert.deepEqual([...words].sort(), spoken.flatMap(lineWords).sort());
    assert.ok(!words.some((w) => /vocalsound|disfmarker|gap|[{}]/.test(w)));
    assert.ok(words.includes('um') || words.includes('Um'));
    assert.match(result.truth.lines.map((l) => l.text).join(' '), /this is the the plan/);
  });

  it('carries the human summary and where the meeting came from in the truth file', async () => {
    const onDisk = JSON.parse(await readFile(result.truthPath, 'utf8')) as RenderedQmsumMeeting['truth'];
    assert.deepEqual(onDisk, result.truth);
    const q = onDisk.qmsum;
    assert.equal(q.meeting, 'ES2006a');
    assert.equal(q.split, 'val');
    assert.equal(q.domain, 'product');
    assert.equal(q.turns_considered, TURNS);
    assert.equal(q.turns_total, 40);
    assert.equal(q.complete, false);
    assert.equal(q.line_turns.length, onDisk.lines.length);
    assert.equal(q.summary?.query, 'Summarize the whole meeting.');
    assert.equal(q.summary.answer, loaded.data.general_query_list[0]!.answer);
    assert.match(q.attribution, /MIT/);
  });

  it('the CLI renders the same turns (cached) and refuses the test split with a usage error', async () => {
    const out = path.join(dir, 'cli.wav');
    const env = { ...process.env, SIMULATOR_CACHE_DIR: cacheDir };
    const ok = spawnSync(process.execPath, [CLI, 'render-qmsum', EXCERPT, '--out', out, `--turns=${TURNS}`, '--dynamics=tidy'], {
      encoding: 'utf8',
      env,
    });
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /QMSum ES2006a \(val, product\): turns 8 of 40/);
    const truth = JSON.parse(await readFile(path.join(dir, 'cli.truth.json'), 'utf8')) as RenderedQmsumMeeting['truth'];
    assert.deepEqual(truth.words, result.truth.words);
    assert.deepEqual(await readFile(out), await readFile(result.wav));

    const refused = spawnSync(process.execPath, [CLI, 'render-qmsum', 'test/ES2004a', '--out', path.join(dir, 'no.wav')], {
      encoding: 'utf8',
      env,
    });
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /test split/);
  });
});
