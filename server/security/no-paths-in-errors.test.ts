/**
 * Error messages never show a path of this machine
 * (docs/decisions/022-host-origin-and-secrets.md; server/kernel/redact.ts).
 *
 * fast-check properties over requests that produce errors: unknown and
 * path-shaped ids on every id route, bad config sections and bodies, imports
 * with unknown providers and models, and imports of the simulator's broken
 * fixture files (truncated, random bytes, lying headers, empty, no audio
 * track), whose jobs fail in the real decoder. Every message a client can see
 * (the error envelope, a job's `error`) must not contain the data folder,
 * os.tmpdir(), process.cwd(), the home folder, or any '/'-rooted path whose
 * first segment exists at this machine's root (/usr, /tmp, /work, …) unless
 * the request itself carried that text (a client's own input echoed back is
 * not a leak).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import request from 'supertest';
import { generateBrokenFixtures, type BrokenFixture } from '../../simulator/broken/generate-broken-fixtures.ts';
import { CONFIG_SECTION_NAMES } from '../features/config/schemas.ts';
import { redactPaths } from '../kernel/redact.ts';
import { testGateway, type TestGateway } from '../testing/gateway.ts';

const ROOT_ENTRIES = new Set(readdirSync('/'));
const SEED = 2026_0022;

/** The machine paths in `message` that `sent` (the request's own text) does not explain. */
function leakedPaths(message: string, sent: string, dataDir: string): string[] {
  const found: string[] = [];
  const named = [dataDir, tmpdir(), process.cwd(), homedir()].filter((p) => p.length > 1);
  for (const p of named) if (message.includes(p) && !sent.includes(p)) found.push(p);
  for (const match of message.matchAll(/(?<![\w.~%-])\/([^\s/'"`:,;)\]]+)(?:\/[^\s'"`:,;)\]]*)*/g)) {
    const whole = match[0];
    if (ROOT_ENTRIES.has(match[1] ?? '') && !sent.includes(whole)) found.push(whole);
  }
  return found;
}

describe('no machine path in any error message', { timeout: 240_000 }, () => {
  let gw: TestGateway;
  let fixtureDir: string;
  let fixtures: BrokenFixture[] = [];
  let token: string;
  let checked = 0;

  before(async () => {
    gw = testGateway();
    token = gw.token(['read', 'record', 'write', 'delete']);
    fixtureDir = mkdtempSync(join(tmpdir(), 'mas-broken-'));
    fixtures = await generateBrokenFixtures(join(fixtureDir, 'out'), { cacheDir: join(fixtureDir, 'cache') });
  });

  after(() => {
    gw.close();
    rmSync(fixtureDir, { recursive: true, force: true });
    process.stdout.write(`# ${checked} error messages checked for machine paths\n`);
  });

  function check(message: unknown, sent: string, what: string): void {
    assert.equal(typeof message, 'string', `${what}: a message`);
    const leaks = leakedPaths(message as string, sent, gw.dataDir);
    assert.deepEqual(leaks, [], `${what}: ${message as string}`);
    checked += 1;
  }

  test('the checker itself sees a leak, and redactPaths removes it', () => {
    const text = `cannot open ${join(gw.dataDir, 'uploads', 'job.wav')} (cwd ${process.cwd()})`;
    assert.ok(leakedPaths(text, '', gw.dataDir).length >= 2);
    assert.deepEqual(leakedPaths(redactPaths(text), '', gw.dataDir), []);
    assert.deepEqual(leakedPaths('no route GET /v1/meetings/x', '', gw.dataDir), []);
  });

  test('property: unknown and path-shaped ids on every id route', async () => {
    const pathy = fc.constantFrom(
      '/etc/passwd',
      '../../etc/passwd',
      gw.dataDir,
      `${tmpdir()}/x`,
      'C:\\Windows\\x',
      '%2Fetc%2Fpasswd',
      '..%2F..%2Fusr',
    );
    const id = fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), pathy, fc.stringMatching(/^(mtg|job|wh|pair|op)_[A-Za-z0-9_-]{1,30}$/));
    const route = fc.constantFrom(
      ['get', '/v1/meetings/'],
      ['delete', '/v1/meetings/'],
      ['get', '/v1/meetings/', '/transcript'],
      ['get', '/v1/jobs/'],
      ['post', '/v1/jobs/', '/retry'],
      ['get', '/v1/webhooks/'],
      ['get', '/v1/pair/'],
      ['get', '/v1/operations/'],
      ['get', '/v1/config/'],
    );
    await fc.assert(
      fc.asyncProperty(route, id, async ([method, prefix, suffix = ''], raw) => {
        const path = `${prefix}${encodeURIComponent(raw)}${suffix}`;
        const res = await request(gw.app)[method as 'get'](path).set('Authorization', `Bearer ${token}`);
        if (res.status < 400) return;
        check(res.body?.error?.message, `${path} ${raw}`, `${method} ${path}`);
      }),
      { numRuns: 300, seed: SEED },
    );
  });

  test('property: bad config sections and bodies', async () => {
    const section = fc.oneof(fc.constantFrom(...CONFIG_SECTION_NAMES), fc.stringMatching(/^[a-z_]{1,20}$/));
    const body = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.record({ model_path: fc.constantFrom('/usr/share/x.bin', `${gw.dataDir}/models/m.bin`, 'models/../../etc') }),
      fc.record({ model: fc.string(), provider: fc.string(), language: fc.string() }),
    );
    await fc.assert(
      fc.asyncProperty(section, body, async (name, value) => {
        const text = JSON.stringify(value);
        const res = await request(gw.app)
          .put(`/v1/config/${name}`)
          .set('Authorization', `Bearer ${token}`)
          .set('Content-Type', 'application/json')
          .send(text);
        if (res.status < 400) return;
        check(res.body?.error?.message, `${name} ${text}`, `PUT /v1/config/${name}`);
      }),
      { numRuns: 200, seed: SEED },
    );
  });

  test('property: imports naming providers and models that do not exist', async () => {
    const name = fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.constantFrom('pocketsphinx', 'whisper.cpp', 'openai-compatible', 'en-us', 'ggml-base.en', '/usr/share/pocketsphinx/model/en-us'),
    );
    await fc.assert(
      fc.asyncProperty(
        name,
        name,
        fc.constantFrom('a.wav', 'b.mp3', 'c.txt', 'noext', '../../x.wav'),
        async (provider, model, filename) => {
          const query = new URLSearchParams({ filename, provider, model }).toString();
          const res = await request(gw.app)
            .post(`/v1/jobs/import?${query}`)
            .set('Authorization', `Bearer ${token}`)
            .set('Content-Type', 'application/octet-stream')
            .send(Buffer.from('RIFF'));
          if (res.status < 400) return;
          check(res.body?.error?.message, `${provider} ${model} ${filename}`, `import ${query}`);
        },
      ),
      { numRuns: 60, seed: SEED },
    );
  });

  test('property: broken fixture files from the simulator fail as jobs whose error names no path', async () => {
    assert.ok(fixtures.length >= 5, 'the simulator made its broken fixtures');
    const extensions = ['wav', 'mp3', 'flac', 'm4a', 'ogg', 'mp4', 'webm'];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...fixtures),
        fc.option(fc.constantFrom(...extensions), { nil: undefined }),
        async (fixture, ext) => {
          const bytes = readFileSync(join(fixtureDir, 'out', fixture.file));
          const filename = ext === undefined ? fixture.file : fixture.file.replace(/\.[^.]+$/, `.${ext}`);
          const res = await request(gw.app)
            .post(`/v1/jobs/import?filename=${encodeURIComponent(filename)}`)
            .set('Authorization', `Bearer ${token}`)
            .set('Content-Type', 'application/octet-stream')
            .send(bytes);
          if (res.status >= 400) {
            check(res.body?.error?.message, filename, `import ${filename}`);
            return;
          }
          const jobId = res.body.job_id as string;
          let job: { state: string; error: string | null } = { state: 'queued', error: null };
          for (let i = 0; i < 600 && !['failed', 'succeeded', 'completed', 'cancelled'].includes(job.state); i += 1) {
            await new Promise((r) => setTimeout(r, 50));
            job = (await request(gw.app).get(`/v1/jobs/${jobId}`).set('Authorization', `Bearer ${token}`)).body;
          }
          assert.notEqual(job.state, 'completed', `${fixture.kind} ${filename} must not import`);
          if (job.state === 'failed') check(job.error, filename, `job of ${fixture.kind} ${filename}`);
        },
      ),
      { numRuns: 14, seed: SEED },
    );
  });
});
