/**
 * The upload part of the pipeline benchmark (bench/pipeline.ts): a large
 * generated body to the gateway and to a bare node:http server, throughput and
 * the server's peak RSS growth.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { fmt, procStatusBytes, resetPeakRss, round, rounds, startServer, type ChildServer, type Rounds } from './lib.ts';
import type { BareUploadArg } from './servers/bare-upload.ts';
import type { GatewayUploadArg } from './servers/gateway-upload.ts';
import type { PipelineConfig } from './pipeline-config.ts';
const SERVER = (name: string): string => fileURLToPath(new URL(`./servers/${name}.ts`, import.meta.url));
export const MiB = 2 ** 20;

// ── Upload ─────────────────────────────────────────────────────────────────

/** `bytes` bytes from a pool of 1 MiB random blocks: the body is generated as it is sent, never held whole. */
function* generatedBody(bytes: number, pool: readonly Buffer[]): Generator<Buffer> {
  let sent = 0;
  for (let i = 0; sent < bytes; i++) {
    const block = pool[i % pool.length]!;
    const n = Math.min(block.length, bytes - sent);
    yield n === block.length ? block : block.subarray(0, n);
    sent += n;
  }
}

interface UploadResult {
  seconds: number;
  status: number;
  body: string;
}

function upload(
  port: number,
  path: string,
  headers: Record<string, string>,
  bytes: number,
  pool: readonly Buffer[],
): Promise<UploadResult> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/octet-stream', 'Content-Length': String(bytes) },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ seconds: (performance.now() - t0) / 1000, status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    pipeline(Readable.from(generatedBody(bytes, pool)), req).catch(reject);
  });
}

interface MemoryWatch {
  stop(): { baseline: number | null; peak_sampled: number | null; peak_hwm: number | null; samples: number; hwm_reset: boolean };
}

/** Samples a process's VmRSS every 100 ms from now on; its VmHWM is reset first, so the kernel's own peak covers this span. */
function watchMemory(pid: number): MemoryWatch {
  const baseline = procStatusBytes(pid, 'VmRSS');
  const hwmReset = resetPeakRss(pid);
  let peak = baseline;
  let samples = 0;
  const timer = setInterval(() => {
    const rss = procStatusBytes(pid, 'VmRSS');
    samples += 1;
    if (rss !== null && (peak === null || rss > peak)) peak = rss;
  }, 100);
  return {
    stop() {
      clearInterval(timer);
      const rss = procStatusBytes(pid, 'VmRSS');
      if (rss !== null && (peak === null || rss > peak)) peak = rss;
      return { baseline, peak_sampled: peak, peak_hwm: hwmReset ? procStatusBytes(pid, 'VmHWM') : null, samples, hwm_reset: hwmReset };
    },
  };
}

interface UploadRound {
  seconds: number;
  mib_per_s: number;
  rss_before_mb: number | null;
  rss_growth_mb: number | null;
  rss_growth_sampled_mb: number | null;
}

export interface UploadFigures {
  bytes: number;
  mib_per_s: Rounds;
  /** Peak RSS growth of the server process: the largest of the rounds, and their median. */
  rss_growth_mb: { max: number | null; median: number | null };
  rounds: UploadRound[];
}

export async function benchUpload(cfg: PipelineConfig, log: (line: string) => void): Promise<Record<string, unknown>> {
  const dirs: string[] = [];
  const temp = (prefix: string): string => {
    const d = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
  const servers: ChildServer[] = [];
  const pool = Array.from({ length: 8 }, () => randomBytes(MiB));
  try {
    const gatewayArg: GatewayUploadArg = { dataDir: temp('mas-bench-upload-gw-') };
    const bareArg: BareUploadArg = { dir: temp('mas-bench-upload-bare-') };
    const gateway = await startServer(SERVER('gateway-upload'), gatewayArg, 60_000);
    servers.push(gateway);
    const bare = await startServer(SERVER('bare-upload'), bareArg, 60_000);
    servers.push(bare);
    const auth = `Bearer ${String(gateway.info['token'])}`;
    const uploadsDir = String(gateway.info['uploads_dir']);

    const api = async (method: string, path: string): Promise<Record<string, unknown>> => {
      const res = await fetch(`http://127.0.0.1:${gateway.info.port}${path}`, { method, headers: { Authorization: auth } });
      return (await res.json()) as Record<string, unknown>;
    };
    /** Cancels the import's job (its bytes are not audio), waits for it to end, and removes what it left. */
    const settle = async (answer: UploadResult): Promise<void> => {
      if (answer.status !== 202) throw new Error(`the gateway answered ${answer.status}: ${answer.body.slice(0, 300)}`);
      const jobId = (JSON.parse(answer.body) as { job_id: string }).job_id;
      await api('POST', `/v1/jobs/${jobId}/cancel`);
      const until = Date.now() + 60_000;
      while (!['cancelled', 'failed', 'succeeded'].includes(String((await api('GET', `/v1/jobs/${jobId}`))['state']))) {
        if (Date.now() > until) throw new Error(`job ${jobId} did not end within 60 s of its cancel`);
        await new Promise((r) => setTimeout(r, 50));
      }
      for (const f of readdirSync(uploadsDir)) rmSync(join(uploadsDir, f), { force: true });
    };
    const targets = {
      gateway: {
        server: gateway,
        send: (bytes: number) =>
          upload(gateway.info.port, '/v1/jobs/import?filename=bench-upload.wav', { Authorization: auth }, bytes, pool),
        settle,
      },
      bare: {
        server: bare,
        send: (bytes: number) => upload(bare.info.port, '/upload/bench-upload.wav', {}, bytes, pool),
        settle: (answer: UploadResult) => {
          if (answer.status !== 200) return Promise.reject(new Error(`the bare server answered ${answer.status}`));
          return Promise.resolve();
        },
      },
    };

    for (const t of Object.values(targets)) await t.settle(await t.send(cfg.upload_warmup_bytes));
    const results: Record<'gateway' | 'bare', UploadRound[]> = { gateway: [], bare: [] };
    for (let r = 0; r < cfg.upload_rounds; r++) {
      const order = r % 2 === 0 ? (['bare', 'gateway'] as const) : (['gateway', 'bare'] as const);
      for (const key of order) {
        const t = targets[key];
        const watch = watchMemory(t.server.pid);
        const answer = await t.send(cfg.upload_bytes);
        const mem = watch.stop();
        await t.settle(answer);
        const peak = Math.max(mem.peak_sampled ?? 0, mem.peak_hwm ?? 0);
        const growth = mem.baseline === null || peak === 0 ? null : round((peak - mem.baseline) / 1e6, 1);
        const row: UploadRound = {
          seconds: round(answer.seconds, 3),
          mib_per_s: round(cfg.upload_bytes / MiB / answer.seconds, 1),
          rss_before_mb: mem.baseline === null ? null : round(mem.baseline / 1e6, 1),
          rss_growth_mb: growth,
          rss_growth_sampled_mb:
            mem.baseline === null || mem.peak_sampled === null ? null : round((mem.peak_sampled - mem.baseline) / 1e6, 1),
        };
        results[key].push(row);
        log(
          `pipeline: upload ${key} round ${r + 1}/${cfg.upload_rounds}: ${fmt(cfg.upload_bytes / MiB, 0)} MiB in ${fmt(row.seconds, 2)} s = ${fmt(row.mib_per_s, 0)} MiB/s, peak RSS +${fmt(growth, 1)} MB`,
        );
      }
    }
    const figures = (list: UploadRound[]): UploadFigures => {
      const growth = rounds(
        list.flatMap((x) => (x.rss_growth_mb === null ? [] : [x.rss_growth_mb])),
        1,
      );
      return {
        bytes: cfg.upload_bytes,
        mib_per_s: rounds(
          list.map((x) => x.mib_per_s),
          1,
        ),
        rss_growth_mb: { max: growth.best, median: growth.median },
        rounds: list,
      };
    };
    return { gateway: figures(results.gateway), bare_http: figures(results.bare) };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}
