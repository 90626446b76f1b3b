import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import * as x from '../harness/expect.ts';
import { command, modelRun } from '../harness/model.ts';
import type { LocalServer } from '../harness/testing.ts';
import { localServer, testCheck, testEnv } from '../harness/testing.ts';
import { openSession, runAttempt, runChecks } from './run.ts';

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
