/** What the soak imports and listens with: the speech file, rendered once, and the webhook receiver that checks signatures. */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('..', import.meta.url));

// ── The speech file, rendered once ─────────────────────────────────────────

const CACHE_DIR = join(REPO, '.tmp', 'bench');

/** The simulator's "tiny" meeting encoded to m4a, cached in .tmp/bench/ (rendered with espeak-ng, encoded with ffmpeg). */
export async function tinyMeetingFile(): Promise<string> {
  const out = join(CACHE_DIR, 'tiny.m4a');
  if (existsSync(out) && statSync(out).size > 1000) return out;
  mkdirSync(CACHE_DIR, { recursive: true });
  const { loadScript } = await import('../simulator/scripts/load-script.ts');
  const { renderScript } = await import('../simulator/synth/render-script.ts');
  const { encodeFormat } = await import('../simulator/encode/encode-format.ts');
  const wav = join(CACHE_DIR, 'tiny.wav');
  await renderScript(await loadScript('tiny'), wav);
  await encodeFormat(wav, 'm4a', out);
  return out;
}

// ── The webhook receiver ───────────────────────────────────────────────────

export interface Receiver {
  target: string;
  url: string;
  setSecret(secret: string): void;
  /** Unique event ids received with a valid signature. */
  events: Set<string>;
  deliveries: number;
  badSignatures: number;
  close(): Promise<void>;
}

/** Checks X-Service-Signature as API.md describes: HMAC-SHA256 over "{timestamp}.{raw body}", lowercase hex, constant-time compare. */
export function signatureOk(secret: string, timestamp: string | undefined, header: string | undefined, raw: Buffer): boolean {
  if (timestamp === undefined || header === undefined || !header.startsWith('sha256=')) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(`${timestamp}.`).update(raw).digest('hex'));
  const given = Buffer.from(header.slice(7));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export async function startReceiver(): Promise<Receiver> {
  let secret = '';
  const r = {
    events: new Set<string>(),
    deliveries: 0,
    badSignatures: 0,
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      r.deliveries += 1;
      if (
        !signatureOk(
          secret,
          req.headers['x-service-timestamp'] as string | undefined,
          req.headers['x-service-signature'] as string | undefined,
          raw,
        )
      )
        r.badSignatures += 1;
      else {
        try {
          r.events.add(String((JSON.parse(raw.toString('utf8')) as { event_id?: unknown }).event_id));
        } catch {
          r.badSignatures += 1;
        }
      }
      res.statusCode = 200;
      res.end('ok');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(r, {
    target: `127.0.0.1:${port}`,
    url: `http://127.0.0.1:${port}/hook`,
    setSecret: (s: string) => {
      secret = s;
    },
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  });
}
