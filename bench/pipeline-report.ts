/** The pipeline benchmark's ratios and targets, and its text and Markdown tables (bench/pipeline.ts). */
import { fmt, formatRows, ratio, target, type BenchReport, type Target } from './lib.ts';
import type { PipelineConfig } from './pipeline-config.ts';
import type { DiarizationFigures } from './pipeline-diarization.ts';
import type { RecognitionFigures } from './pipeline-recognition.ts';
import { MiB, type UploadFigures } from './pipeline-upload.ts';
function isError(x: unknown): x is { error: string } {
  return typeof x === 'object' && x !== null && 'error' in x;
}

export function derive(
  b: Record<string, unknown>,
  cfg: PipelineConfig,
): { ratios: Record<string, number | null>; baselines: Record<string, string>; targets: Record<string, Target> } {
  const ratios: Record<string, number | null> = {};
  const baselines: Record<string, string> = {};
  const targets: Record<string, Target> = {};

  const up = isError(b['upload']) ? undefined : (b['upload'] as { gateway: UploadFigures; bare_http: UploadFigures } | undefined);
  ratios['upload_vs_bare_http'] = ratio(up?.gateway.mib_per_s.best, up?.bare_http.mib_per_s.best);
  baselines['upload_vs_bare_http'] = 'bare node:http server streaming the body to a file, same size, same run (best rounds)';
  ratios['upload_vs_bare_http_median'] = ratio(up?.gateway.mib_per_s.median, up?.bare_http.mib_per_s.median);
  baselines['upload_vs_bare_http_median'] = 'the same, median rounds';
  targets['upload_vs_bare_http'] = target(ratios['upload_vs_bare_http'], { min: 0.8 });
  // The largest growth of any round counts.
  const growth = up?.gateway.rss_growth_mb.max ?? null;
  targets['upload_peak_rss_growth_mb'] = { target: '< 64', value: growth, met: growth !== null && growth < 64 };

  const dec = isError(b['decode'])
    ? undefined
    : (b['decode'] as { formats: Record<string, { decoder_vs_ffmpeg: number | null }> } | undefined);
  for (const [format, row] of Object.entries(dec?.formats ?? {})) {
    ratios[`decode_${format}_vs_ffmpeg`] = row.decoder_vs_ffmpeg;
    baselines[`decode_${format}_vs_ffmpeg`] =
      `plain ffmpeg to 16 kHz mono f32le on the same ${format} file (seconds of audio per second, best of ${cfg.decode_runs})`;
  }

  const rec = isError(b['recognition']) ? {} : ((b['recognition'] ?? {}) as Record<string, RecognitionFigures>);
  for (const [name, r] of Object.entries(rec)) {
    ratios[`wer_${name}_with_vs_without_bias`] = ratio(r.with_bias.wer, r.without_bias.wer);
    baselines[`wer_${name}_with_vs_without_bias`] = 'WER of the same recognizer without custom words (below 1: the bias helps)';
    ratios[`rtf_${name}_with_vs_without_bias`] = ratio(r.with_bias.rtf_wall.median, r.without_bias.rtf_wall.median);
    baselines[`rtf_${name}_with_vs_without_bias`] =
      'wall time without custom words (the keyword-spotting pass costs the rest), median rounds';
  }

  const dia = isError(b['diarization']) ? {} : ((b['diarization'] ?? {}) as Record<string, DiarizationFigures>);
  const distinct = cfg.diarization_scripts.map((n) => dia[n]).filter((x) => x !== undefined);
  const worst = (key: 'automatic' | 'true_count') =>
    distinct.length === 0 || distinct.length < cfg.diarization_scripts.length ? null : Math.min(...distinct.map((d) => d[key].accuracy));
  targets['diarization_distinct_automatic_min'] = target(worst('automatic'), { min: 0.95 });
  targets['diarization_distinct_true_count_min'] = target(worst('true_count'), { min: 0.95 });
  return { ratios, baselines, targets };
}

// ── Printing ───────────────────────────────────────────────────────────────

function sections(report: BenchReport) {
  const b = report.benchmarks;
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the section's shape
  const ok = <T>(x: unknown): T | undefined => (x === undefined || isError(x) ? undefined : (x as T));
  return {
    upload: ok<{ gateway: UploadFigures; bare_http: UploadFigures }>(b['upload']),
    decode: ok<{ formats: Record<string, Record<string, number | string | null>> }>(b['decode']),
    recognition: ok<Record<string, RecognitionFigures>>(b['recognition']),
    diarization: ok<Record<string, DiarizationFigures>>(b['diarization']),
    errors: Object.entries(b)
      .filter(([, v]) => isError(v))
      .map(([k, v]) => `${k}: ${(v as { error: string }).error}`),
  };
}

function pct(x: number | null | undefined): string {
  return x === null || x === undefined ? '–' : `${(x * 100).toFixed(1)} %`;
}

export function table(report: BenchReport): string {
  const s = sections(report);
  const lines: string[] = [];
  if (s.upload !== undefined) {
    const rows = [['upload', 'MiB', 'best MiB/s', 'median MiB/s', 'peak RSS growth MB (max)', 'rounds MiB/s']];
    for (const [label, x] of [
      ['gateway POST /v1/jobs/import', s.upload.gateway],
      ['bare node:http to a file', s.upload.bare_http],
    ] as const) {
      rows.push([
        label,
        fmt(x.bytes / MiB, 0),
        fmt(x.mib_per_s.best, 0),
        fmt(x.mib_per_s.median, 0),
        fmt(x.rss_growth_mb.max, 1),
        x.mib_per_s.rounds.map((v) => fmt(v, 0)).join(' / '),
      ]);
    }
    lines.push(formatRows(rows), '');
  }
  if (s.decode !== undefined) {
    const rows = [['decode (× real time)', 'engine', 'decoder', 'in process', 'ffmpeg', 'decoder/ffmpeg']];
    for (const [f, r] of Object.entries(s.decode.formats)) {
      rows.push([
        f,
        String(r['engine']),
        fmt(r['decoder_x'] as number, 0),
        fmt(r['in_process_x'] as number, 0),
        fmt(r['ffmpeg_x'] as number, 0),
        fmt(r['decoder_vs_ffmpeg'] as number, 2),
      ]);
    }
    lines.push(formatRows(rows), '');
  }
  if (s.recognition !== undefined) {
    const rows = [
      ['recognition', 'audio s', 'words', 'WER', 'WER bias', 'custom heard', 'RTF wall', 'RTF wall bias', 'RTF CPU', 'RTF CPU bias'],
    ];
    for (const [name, r] of Object.entries(s.recognition)) {
      rows.push([
        name,
        fmt(r.audio_s, 1),
        String(r.reference_words),
        pct(r.without_bias.wer),
        pct(r.with_bias.wer),
        `${r.without_bias.custom_word_hits.heard} → ${r.with_bias.custom_word_hits.heard} of ${r.with_bias.custom_word_hits.in_truth}`,
        fmt(r.without_bias.rtf_wall.median, 3),
        fmt(r.with_bias.rtf_wall.median, 3),
        fmt(r.without_bias.rtf_cpu.median, 3),
        fmt(r.with_bias.rtf_cpu.median, 3),
      ]);
    }
    lines.push(formatRows(rows), '');
  }
  if (s.diarization !== undefined) {
    const rows = [
      [
        'diarization',
        'speakers',
        'auto found',
        'auto acc',
        'true-count acc',
        'auto acc (recognized)',
        'true acc (recognized)',
        '× real time',
      ],
    ];
    for (const [name, d] of Object.entries(s.diarization)) {
      rows.push([
        `${name}${d.distinct_voices ? '' : ' (reported)'}`,
        String(d.true_speakers),
        String(d.automatic.speakers_found),
        pct(d.automatic.accuracy),
        pct(d.true_count.accuracy),
        pct(d.automatic.accuracy_recognized_words),
        pct(d.true_count.accuracy_recognized_words),
        fmt(d.automatic.x_real_time, 0),
      ]);
    }
    lines.push(formatRows(rows), '');
  }
  for (const e of s.errors) lines.push(`ERROR ${e}`);
  for (const [name, value] of Object.entries(report.ratios)) lines.push(`${name}: ${fmt(value, 3)}`);
  for (const [name, t] of Object.entries(report.targets))
    lines.push(`target ${name} ${t.target}: ${fmt(t.value, 3)} → ${t.met ? 'met' : 'NOT met'}`);
  return lines.join('\n');
}

export function markdown(report: BenchReport): string {
  const s = sections(report);
  const out: string[] = [];
  if (s.upload !== undefined) {
    out.push('| upload | size | best MiB/s | median MiB/s | rounds MiB/s | peak RSS growth MB, by round |', '|---|---:|---:|---:|---|---|');
    for (const [label, x] of [
      ['gateway POST /v1/jobs/import (.wav, octet-stream)', s.upload.gateway],
      ['bare node:http streaming to a file (baseline)', s.upload.bare_http],
    ] as const) {
      out.push(
        `| ${label} | ${fmt(x.bytes / MiB, 0)} MiB | ${fmt(x.mib_per_s.best, 0)} | ${fmt(x.mib_per_s.median, 0)} | ${x.mib_per_s.rounds.map((v) => fmt(v, 0)).join(' / ')} | ${x.rounds.map((r) => fmt(r.rss_growth_mb, 1)).join(' / ')} |`,
      );
    }
    out.push('');
  }
  if (s.decode !== undefined) {
    out.push(
      '| decode, × real time | engine | AudioDecoder | in process only | plain ffmpeg | AudioDecoder ÷ ffmpeg |',
      '|---|---|---:|---:|---:|---:|',
    );
    for (const [f, r] of Object.entries(s.decode.formats)) {
      out.push(
        `| ${f} | ${String(r['engine'])} | ${fmt(r['decoder_x'] as number, 0)} | ${fmt(r['in_process_x'] as number, 0)} | ${fmt(r['ffmpeg_x'] as number, 0)} | ${fmt(r['decoder_vs_ffmpeg'] as number, 2)} |`,
      );
    }
    out.push('');
  }
  if (s.recognition !== undefined) {
    out.push(
      '| recognition (pocketsphinx) | audio s | speech s | words | WER without → with bias | ' +
        'custom words heard | false alarms | RTF wall without / with (median, best) | RTF CPU ' +
        'without / with (median) |',
      '|---|---:|---:|---:|---|---|---:|---|---|',
    );
    for (const [name, r] of Object.entries(s.recognition)) {
      out.push(
        `| ${name} | ${fmt(r.audio_s, 1)} | ${fmt(r.speech_s, 1)} | ${r.reference_words} | ${pct(r.without_bias.wer)} → ${pct(r.with_bias.wer)} | ` +
          `${r.without_bias.custom_word_hits.heard} → ${r.with_bias.custom_word_hits.heard} of ${r.with_bias.custom_word_hits.in_truth} | ${r.without_bias.custom_word_hits.false_alarms} → ${r.with_bias.custom_word_hits.false_alarms} | ` +
          `${fmt(r.without_bias.rtf_wall.median, 3)} / ${fmt(r.with_bias.rtf_wall.median, 3)} (${fmt(r.without_bias.rtf_wall.best, 3)} / ${fmt(r.with_bias.rtf_wall.best, 3)}) | ` +
          `${fmt(r.without_bias.rtf_cpu.median, 3)} / ${fmt(r.with_bias.rtf_cpu.median, 3)} |`,
      );
    }
    out.push('');
  }
  if (s.diarization !== undefined) {
    out.push(
      '| diarization | speakers | automatic: found, accuracy | true count: accuracy | on ' +
        'recognized words: automatic / true count | × real time |',
      '|---|---:|---|---:|---|---:|',
    );
    for (const [name, d] of Object.entries(s.diarization)) {
      out.push(
        `| ${name}${d.distinct_voices ? '' : ' (reported, no target)'} | ${d.true_speakers} | ${d.automatic.speakers_found}, ${pct(d.automatic.accuracy)} | ${pct(d.true_count.accuracy)} | ` +
          `${pct(d.automatic.accuracy_recognized_words)} / ${pct(d.true_count.accuracy_recognized_words)} | ${fmt(d.automatic.x_real_time, 0)} |`,
      );
    }
    out.push('');
  }
  for (const e of s.errors) out.push(`**Error** ${e}`, '');
  return out.join('\n');
}
