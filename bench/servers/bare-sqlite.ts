/**
 * Bench baseline: a bare node:http server answering the gateway's read
 * queries from the gateway's own SQLite file, with nothing else: no
 * framework, no authentication, no validation, no error envelope. It is the
 * floor the request path of GET /v1/meetings and GET /v1/search is measured
 * against (bench/core.ts), so it runs the same SQL and writes the same JSON
 * bytes; core.ts compares one answer of each with the gateway's before
 * measuring, so the two cannot drift apart unnoticed.
 *
 *   GET /v1/meetings?limit=&offset=   the page and the total
 *   GET /v1/search?q=&limit=&offset=  title hits, then transcript hits
 *
 * The SQL is written out here on purpose (not imported from server/store/):
 * a baseline that shared the gateway's code would share its costs.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DatabaseSync } from 'node:sqlite';
import { announce, serverArg } from '../lib.ts';

export interface BareSqliteArg {
  /** The gateway's database file (server/kernel/store/database.ts opens it in WAL mode, so a second reader is fine). */
  database: string;
}

const arg = serverArg<BareSqliteArg>();
const db = new DatabaseSync(arg.database, { readOnly: true });

const meetingPage = db.prepare(
  `SELECT m.id, m.title, m.created_at, m.updated_at, m.source, m.language,
          COALESCE(m.duration_seconds, (SELECT MAX(s.end_s) FROM segments s WHERE s.meeting_id = m.id)) AS duration_seconds,
          m.recording_file
     FROM meetings m ORDER BY m.created_at DESC, m.id DESC LIMIT ? OFFSET ?`,
);
const meetingCount = db.prepare('SELECT COUNT(*) AS n FROM meetings');
const titleCount = db.prepare('SELECT COUNT(*) AS n FROM titles_fts WHERE titles_fts MATCH ?');
const titleHits = db.prepare(
  `SELECT m.id, m.title, m.created_at, snippet(titles_fts, 0, '', '', '…', 16) AS context
     FROM titles_fts JOIN meetings m ON m.seq = titles_fts.rowid
    WHERE titles_fts MATCH ? ORDER BY titles_fts.rowid DESC LIMIT ? OFFSET ?`,
);
const segmentHits = db.prepare(
  `SELECT s.meeting_id, m.title, m.created_at, s.start_s, snippet(segments_fts, 0, '', '', '…', 16) AS context
     FROM segments_fts JOIN segments s ON s.id = segments_fts.rowid JOIN meetings m ON m.id = s.meeting_id
    WHERE segments_fts MATCH ? ORDER BY segments_fts.rowid DESC LIMIT ? OFFSET ?`,
);

type Row = Record<string, string | number | null>;

function int(text: string | null, fallback: number, min: number, max: number): number {
  const n = text === null || text === '' ? fallback : Number(text);
  return Math.min(max, Math.max(min, Number.isInteger(n) ? n : fallback));
}

function meetings(params: URLSearchParams): unknown {
  const limit = int(params.get('limit'), 50, 1, 200);
  const offset = int(params.get('offset'), 0, 0, Number.MAX_SAFE_INTEGER);
  const rows = meetingPage.all(limit, offset) as Row[];
  return {
    meetings: rows.map((r) => ({
      id: r['id'],
      title: r['title'],
      created_at: r['created_at'],
      updated_at: r['updated_at'],
      source: r['source'],
      language: r['language'],
      duration_seconds: r['duration_seconds'],
      has_recording: r['recording_file'] !== null,
    })),
    total: (meetingCount.get() as { n: number }).n,
    limit,
    offset,
  };
}

function search(params: URLSearchParams): unknown {
  const limit = int(params.get('limit'), 50, 1, 200);
  const offset = int(params.get('offset'), 0, 0, Number.MAX_SAFE_INTEGER);
  const words = (params.get('q') ?? '').normalize('NFC').match(/[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu);
  if (words === null) return { results: [] };
  const match = words.map((w) => `"${w.replaceAll('"', '""')}"`).join(' ');
  const titles = (titleCount.get(match) as { n: number }).n;
  const results: Record<string, unknown>[] = [];
  if (offset < titles) {
    for (const r of titleHits.all(match, limit, offset) as Row[]) {
      results.push({ meeting_id: r['id'], title: r['title'], match_context: r['context'], timestamp: r['created_at'] });
    }
  }
  if (results.length < limit) {
    for (const r of segmentHits.all(match, limit - results.length, Math.max(0, offset - titles)) as Row[]) {
      results.push({
        meeting_id: r['meeting_id'],
        title: r['title'],
        match_context: r['context'],
        timestamp: r['created_at'],
        audio_start_time: r['start_s'],
      });
    }
  }
  return { results };
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const json =
    url.pathname === '/v1/meetings' ? meetings(url.searchParams) : url.pathname === '/v1/search' ? search(url.searchParams) : null;
  const body = JSON.stringify(json ?? { error: 'not found' });
  res.writeHead(json === null ? 404 : 200, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  announce({ ready: true, port: (server.address() as AddressInfo).port }, () => {
    server.close();
    db.close();
  });
});
