import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import * as x from '../harness/expect.ts';
import { command, modelRun } from '../harness/model.ts';
import type { LocalServer } from '../harness/testing.ts';
import { localServer, testCheck, testEnv } from '../harness/testing.ts';
import { failureText } from '../reporters/text.ts';
import { dropRequestBodies, writeRequestBodies } from '../reporters/bodies.ts';
import { runAttempt, runChecks } from './run.ts';
import { openSession } from './session.ts';
import { syntheticRun } from '../harness/testing.ts';

let server: LocalServer;
let counter = 0;
let flakyCalls = 0;
before(async () => {
  server = await localServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/echo') {
      const n = Number(url.searchParams.get('n'));
      if (n >= 10) send(500, { error: { code: 'internal', message: 'too big' } });
      else send(200, { n });
      return;
    }
    if (url.pathname === '/flaky') {
      send(++flakyCalls === 1 ? 500 : 200, {});
      return;
    }
    if (url.pathname === '/reset') {
      counter = 0;
      send(200, {});
      return;
    }
    // A counter with a bug: the fourth increment is lost.
    if (url.pathname === '/inc') {
      counter += 1;
      if (counter === 4) counter -= 1;
      send(200, { value: counter });
      return;
    }
    if (url.pathname === '/value') {
      send(200, { value: counter });
      return;
    }
    if (url.pathname === '/slow') return setTimeout(() => send(200, {}), 2000);
    if (url.pathname === '/body') {
      // What arrived: its size and digest (the curl-line tests send bodies back through curl).
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        send(200, { bytes: body.length, sha256: createHash('sha256').update(body).digest('hex') });
      });
      return;
    }
    send(404, { error: { code: 'not_found', message: 'no' } });
  });
});
after(() => server.close());

async function session() {
  return openSession({ baseUrl: server.url, seed: 5, runs: 30, slow: false, fresh: false, requestTimeoutMs: 3000 });
}

test('a failing property reports the clause, the seed, the path, the shrunk counterexample and its exchanges; the path replays it', async () => {
  const check = testCheck({
    async run(ctx) {
      await ctx.property('small numbers', fc.integer({ min: 0, max: 1000 }), async (n) => {
        const res = await ctx.api.get('/echo', { query: { n } });
        ctx.expect('meetings.rename.applies', `GET /echo?n=${n}`, x.status(res, 200), res);
      });
    },
  });
  const s = await session();
  const a = await runAttempt(check, s, false);
  assert.equal(a.outcome, 'FAIL');
  const f = a.failures[0]!;
  assert.equal(f.clause, 'meetings.rename.applies');
  assert.match(f.requirement, /^PATCH \/v1\/meetings/);
  assert.equal(f.property?.counterexample, '10');
  assert.ok(f.property?.path !== undefined);
  assert.match(f.curl ?? '', /echo\?n=10/);
  assert.ok(f.exchanges!.length >= 1);
  // Replay: seed and path lead straight to the same counterexample.
  const replay = await session();
  replay.env.replay = { 'small numbers': { seed: f.property.seed, path: f.property.path } };
  const b = await runAttempt(check, replay, false);
  assert.equal(b.failures[0]?.property?.counterexample, '10');
  assert.ok(b.exchanges.length < a.exchanges.length);
});

test('outcomes: SKIPPED, ERROR, FAIL, a check grading a clause it does not list, a gap never failing', async () => {
  const s = await session();
  assert.equal((await runAttempt(testCheck({ run: async (ctx) => ctx.skip('no receiver') }), s, false)).outcome, 'SKIPPED');
  const err = await runAttempt(
    testCheck({
      run: async () => {
        throw new TypeError('harness bug');
      },
    }),
    s,
    false,
  );
  assert.equal(err.outcome, 'ERROR');
  assert.match(err.error!.message, /harness bug/);
  const fail = await runAttempt(
    testCheck({ run: async (ctx) => void ctx.expect('meetings.rename.applies', 'w', x.verdict(false, 'e', 'a')) }),
    s,
    false,
  );
  assert.equal(fail.outcome, 'FAIL');
  assert.equal(fail.completed, true);
  const unlisted = await runAttempt(
    testCheck({ run: async (ctx) => void ctx.expect('health.no-auth', 'w', x.verdict(false, 'e', 'a')) }),
    s,
    false,
  );
  assert.equal(unlisted.outcome, 'ERROR');
  assert.match(unlisted.error!.message, /does not name/);
  const gap = await runAttempt(
    testCheck({
      id: 'config/g',
      clauses: ['config.fields-withheld.gap'],
      level: 'gap',
      run: async (ctx) => void ctx.expect('config.fields-withheld.gap', 'w', x.verdict(false, 'e', 'a')),
    }),
    s,
    false,
  );
  assert.equal(gap.outcome, 'INFORMATIONAL');
  assert.equal(gap.observations.length, 1);
});

test('conflicts: the spec’s choice passes, another alternative is NON_STRICT, none is FAIL; no choice accepts any', async () => {
  const s = await session();
  const grade = async (clause: string, matched: number | null) =>
    (
      await runAttempt(
        testCheck({ id: 'x/c', clauses: [clause], level: 'conflict', run: async (ctx) => ctx.conflict(clause, 'w', matched, 'actual') }),
        s,
        false,
      )
    ).outcome;
  assert.equal(await grade('recording.wait.scope-read', 0), 'PASS');
  assert.equal(await grade('recording.wait.scope-read', 1), 'NON_STRICT');
  assert.equal(await grade('recording.wait.scope-read', null), 'FAIL');
  assert.equal(await grade('config.section.unknown', 1), 'PASS');
  assert.equal(await grade('config.section.unknown', null), 'FAIL');
});

test('runChecks: missing needs skip with the need named; a second run that passes makes FLAKY; time limits', async () => {
  const s = await session();
  const results = await runChecks(
    [
      testCheck({ id: 'a/needs-tokens', needs: ['tokens'], run: async () => undefined }),
      testCheck({ id: 'a/needs-slow', needs: ['slow'], run: async () => undefined }),
      testCheck({
        id: 'a/flaky',
        run: async (ctx) => {
          ctx.expect('meetings.rename.applies', 'GET /flaky', x.status(await ctx.api.get('/flaky'), 200));
        },
      }),
      testCheck({
        id: 'a/slow',
        timeoutMs: 200,
        run: async (ctx) => {
          await ctx.api.get('/slow');
        },
      }),
    ],
    s,
    {},
  );
  const by = Object.fromEntries(results.map((r) => [r.id, r]));
  assert.equal(by['a/needs-tokens']!.outcome, 'SKIPPED');
  assert.match(by['a/needs-tokens']!.skipReason!, /'tokens'.*no --control-url/);
  assert.match(by['a/needs-slow']!.skipReason!, /--slow/);
  assert.equal(by['a/flaky']!.outcome, 'FLAKY');
  assert.equal(by['a/flaky']!.retry?.outcome, 'PASS');
  assert.equal(by['a/slow']!.outcome, 'ERROR');
  assert.match(by['a/slow']!.error!.message, /did not finish within 0.2 s/);
  assert.ok(s.env.runLog.length >= 2, 'api exchanges go to the run log for audits');
});

test('model-based: a lost increment is found and shrunk to a short command sequence', async () => {
  const s = await session();
  const check = testCheck({
    async run(ctx) {
      await modelRun<{ value: number }, null>(ctx, 'counter', {
        setup: async () => {
          await ctx.api.post('/reset');
          return { model: { value: 0 }, real: null };
        },
        commands: [
          fc.constant(
            command(
              'inc',
              () => true,
              async (m) => {
                const res = await ctx.api.post('/inc');
                m.value += 1;
                ctx.expect('meetings.rename.applies', 'POST /inc', x.equal((res.body as { value: number }).value, m.value, 'value'), res);
              },
            ),
          ),
          fc.constant(
            command(
              'read',
              () => true,
              async (m) => {
                const res = await ctx.api.get('/value');
                ctx.expect('meetings.rename.applies', 'GET /value', x.equal((res.body as { value: number }).value, m.value, 'value'), res);
              },
            ),
          ),
        ],
        runs: 50,
      });
    },
  });
  const a = await runAttempt(check, s, false);
  assert.equal(a.outcome, 'FAIL');
  assert.match(a.failures[0]!.property!.counterexample!, /inc,inc,inc,inc/);
});

test('the environment helper builds a usable context without a target', () => {
  assert.equal(testEnv('http://x').control, null);
});

test('a failure carries the curl line of the exchange its verdict rests on; the last exchange only when none is named, and said so', async () => {
  const check = testCheck({
    async run(ctx) {
      const first = await ctx.api.get('/echo', { query: { n: 50 } }); // 500
      const second = await ctx.api.get('/echo', { query: { n: 1 } }); // 200
      // The check names the later response as its source; the verdict knows it failed on the first.
      ctx.expect('meetings.rename.applies', 'both answer 200', x.all(x.status(first, 200), x.status(second, 200)), second);
      ctx.expect('meetings.rename.applies', 'a verdict on no response', x.that(false, 'something', 'nothing'));
    },
  });
  const a = await runAttempt(check, await session(), false);
  assert.equal(a.outcome, 'FAIL');
  const [onFirst, unnamed] = a.failures;
  assert.equal(onFirst?.exchange, 1);
  assert.match(onFirst.curl ?? '', /echo\?n=50/);
  assert.equal(onFirst.lastExchange, undefined);
  assert.deepEqual(a.exchanges[0]?.failed, ['meetings.rename.applies'], 'the exchange is marked with the clause that failed on it');
  assert.equal(a.exchanges[1]?.failed, undefined);
  assert.equal(unnamed?.exchange, 2);
  assert.equal(unnamed.lastExchange, true);
  assert.match(failureText(unnamed), /curl \(the check's last request: the verdict names none\): curl .*echo\?n=1/);
});

const hasCurl = ((): boolean => {
  try {
    execFileSync('curl', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

test(
  'binary bodies: a curl line never names a file that does not exist; small ones inline, large ones written beside the JSON report',
  { skip: !hasCurl && 'no curl on this machine' },
  async () => {
    const small = Uint8Array.from({ length: 100 }, (_, i) => (i * 37) % 256);
    const large = Uint8Array.from({ length: 20_000 }, (_, i) => (i * 7 + (i >> 8)) % 256);
    const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
    const check = testCheck({
      async run(ctx) {
        for (const body of [small, large]) {
          const res = await ctx.api.post('/body', { body, contentType: 'audio/wav' });
          ctx.expect('meetings.rename.applies', `POST /body with ${body.length} bytes`, x.status(res, 201));
        }
      },
    });
    const a = await runAttempt(check, await session(), false);
    const [inline, big] = a.failures;
    // Asynchronous: the target answering curl runs in this process.
    const sh = async (line: string): Promise<{ bytes: number; sha256: string }> => {
      const { stdout } = await promisify(execFile)('bash', ['-c', line], { encoding: 'utf8', timeout: 30_000 });
      return JSON.parse(stdout.slice(stdout.indexOf('{'))) as { bytes: number; sha256: string };
    };
    const namedFiles = (line: string): string[] => [...line.matchAll(/--data-binary @(?!-)(\S+)/g)].map((m) => m[1]!.replace(/^'|'$/g, ''));
    // Small: the bytes travel in the line itself, and curl sends exactly them.
    assert.match(inline?.curl ?? '', /base64 -d \| curl .*--data-binary @-/);
    assert.deepEqual(namedFiles(inline!.curl!), []);
    assert.deepEqual(await sh(inline!.curl!), { bytes: 100, sha256: sha(small) });
    // Large, without a JSON report: the line says plainly the body is left out and names no file.
    assert.match(big?.curl ?? '', /# request body omitted: 20000 bytes/);
    assert.deepEqual(namedFiles(big!.curl!), []);
    for (const e of a.exchanges) assert.deepEqual(namedFiles(e.curl), [], e.curl);
    // With --json DIR the body is written beside the report and the line names it.
    const dir = mkdtempSync(join(tmpdir(), 'conf-bodies-'));
    const report = writeRequestBodies(
      dir,
      syntheticRun([
        {
          ...a,
          id: check.id,
          area: 'meetings',
          clauses: [...check.clauses],
          level: check.level,
          needs: [],
          description: '',
          requirement: '',
        },
      ]),
    );
    const f = report.results[0]!.failures[1]!;
    const files = namedFiles(f.curl!);
    assert.deepEqual(files, [join(dir, 'bodies', 'meetings', `test-check-${f.exchange}.bin`)]);
    assert.ok(existsSync(files[0]!));
    assert.deepEqual(new Uint8Array(readFileSync(files[0]!)), large);
    assert.equal(f.requestBody, undefined, 'the bytes are in the file, not repeated in the JSON');
    assert.deepEqual(await sh(f.curl!), { bytes: 20_000, sha256: sha(large) });
    assert.equal(report.results[0]!.failures[0]!.curl, inline!.curl, 'an inline line stays as it was');
    // Without a JSON report the bytes are dropped and the line keeps saying the body is omitted.
    const dropped = dropRequestBodies(syntheticRun([{ ...report.results[0]!, failures: a.failures }])).results[0]!.failures[1]!;
    assert.equal(dropped.requestBody, undefined);
    assert.equal(dropped.curl, big!.curl);
  },
);
