/**
 * A tiny pipeline run through bench/run.ts, exactly as `npm run bench -- --only
 * pipeline --tiny` runs it: a 64 MiB upload to the gateway and to the bare
 * server, 4 s of audio per decode format, the tiny meeting recognized and
 * diarized. Shapes only: no speed, rate or accuracy is asserted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { TINY } from './pipeline-config.ts';
import { CUSTOM_WORDS, customWordsFor } from './pipeline-recognition.ts';
import { loadScript } from '../simulator/scripts/load-script.ts';

const RUN = fileURLToPath(new URL('./run.ts', import.meta.url));

type Obj = Record<string, unknown>;
const num = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v);

test(
  'a tiny pipeline run through run.ts writes a well-formed bench-pipeline.json, bench.json and bench.md',
  { timeout: 300_000 },
  async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'mas-bench-test-'));
    try {
      const { stdout } = await promisify(execFile)(process.execPath, [RUN, '--only', 'pipeline', '--tiny', `--out-dir=${outDir}`], {
        timeout: 280_000,
        maxBuffer: 16 * 2 ** 20,
      });
      assert.match(stdout, /bench pipeline/);
      assert.match(stdout, /upload_vs_bare_http/);

      const report = JSON.parse(readFileSync(join(outDir, 'bench-pipeline.json'), 'utf8')) as Obj;
      assert.deepEqual(Object.keys(report).sort(), ['baselines', 'benchmarks', 'config', 'generated_at', 'machine', 'ratios', 'targets']);
      const b = report['benchmarks'] as Record<string, Obj>;
      assert.deepEqual(Object.keys(b).sort(), ['decode', 'diarization', 'recognition', 'upload']);
      for (const [k, v] of Object.entries(b)) assert.equal(v['error'], undefined, `${k}: ${String(v['error'])}`);

      for (const server of ['gateway', 'bare_http']) {
        const u = b['upload']![server] as Obj;
        assert.equal(u['bytes'], TINY.upload_bytes);
        assert.ok(num((u['mib_per_s'] as Obj)['best']), `${server} throughput`);
        assert.ok(num((u['rss_growth_mb'] as Obj)['max']), `${server} RSS growth`);
        assert.equal((u['rounds'] as unknown[]).length, TINY.upload_rounds);
      }

      const formats = (b['decode']!['formats'] ?? {}) as Record<string, Obj>;
      assert.ok(Object.keys(formats).length >= 10, 'every import format');
      for (const [f, row] of Object.entries(formats)) {
        for (const k of ['decoder_x', 'ffmpeg_x']) assert.ok(num(row[k]), `${f} ${k}`);
        // Only WAV and MP3 have an in-process decoder (decision 053).
        assert.ok(/^(wav|mp3)/.test(f) ? num(row['in_process_x']) : row['in_process_x'] === null, `${f} in_process_x`);
      }

      const rec = b['recognition']!['tiny'] as Obj;
      assert.deepEqual(rec['custom_words'], CUSTOM_WORDS['tiny']);
      for (const setting of ['without_bias', 'with_bias']) {
        const s = rec[setting] as Obj;
        assert.ok(num(s['wer']) && (s['wer'] as number) >= 0, `${setting} WER`);
        assert.ok(num((s['rtf_wall'] as Obj)['median']) && num((s['rtf_cpu'] as Obj)['median']), `${setting} RTF`);
        assert.deepEqual(Object.keys(s['custom_word_hits'] as Obj).sort(), ['false_alarms', 'heard', 'in_truth']);
      }
      assert.equal((rec['without_bias'] as Obj)['custom_words'], 0);
      assert.equal((rec['with_bias'] as Obj)['custom_words'], CUSTOM_WORDS['tiny']!.length);

      const dia = b['diarization']!['tiny'] as Obj;
      assert.equal(dia['true_speakers'], 2);
      for (const mode of ['automatic', 'true_count']) {
        const m = dia[mode] as Obj;
        assert.ok(num(m['accuracy']) && (m['accuracy'] as number) >= 0 && (m['accuracy'] as number) <= 1, `${mode} accuracy`);
        assert.ok((m['speakers_found'] as number) >= 1);
      }

      const ratios = report['ratios'] as Obj;
      const baselines = report['baselines'] as Obj;
      for (const k of ['upload_vs_bare_http', 'decode_wav_vs_ffmpeg', 'wer_tiny_with_vs_without_bias']) assert.ok(k in ratios, k);
      for (const k of Object.keys(ratios)) assert.equal(typeof baselines[k], 'string', `baseline of ${k}`);
      const targets = report['targets'] as Record<string, Obj>;
      assert.deepEqual(Object.keys(targets).sort(), [
        'diarization_distinct_automatic_min',
        'diarization_distinct_true_count_min',
        'upload_peak_rss_growth_mb',
        'upload_vs_bare_http',
      ]);
      for (const t of Object.values(targets)) {
        assert.equal(typeof t['target'], 'string');
        assert.equal(typeof t['met'], 'boolean');
      }

      const agg = JSON.parse(readFileSync(join(outDir, 'bench.json'), 'utf8')) as Obj;
      assert.equal(agg['command'], 'npm run bench -- --only pipeline --tiny');
      assert.equal((agg['parts'] as Record<string, Obj>)['pipeline']!['ok'], true);
      assert.ok(num((agg['parts'] as Record<string, Obj>)['pipeline']!['seconds']));
      assert.ok('upload' in ((agg['figures'] as Record<string, Obj>)['pipeline'] ?? {}));
      for (const r of agg['ratios'] as Obj[]) assert.equal(typeof r['baseline'], 'string');
      assert.equal((agg['targets'] as unknown[]).length, 4);

      const md = readFileSync(join(outDir, 'bench.md'), 'utf8');
      assert.match(md, /^# Benchmarks/);
      assert.match(md, /## pipeline/);
      assert.match(md, /`npm run bench -- --only pipeline --tiny`/);
      assert.match(md, /\| upload_vs_bare_http \|/);
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
  },
);

test('custom words: the listed ones for fixture meetings, names and mid-sentence capitals for any other', async () => {
  const script = await loadScript('two-person-call');
  assert.deepEqual(customWordsFor('two-person-call', script), CUSTOM_WORDS['two-person-call']);
  const derived = customWordsFor('unlisted', script);
  for (const name of ['Alice', 'Moreau', 'Ben', 'Okafor', 'Friday', 'European']) assert.ok(derived.includes(name), name);
  assert.ok(!derived.includes('I'));
  assert.ok(derived.length <= 16);
});
