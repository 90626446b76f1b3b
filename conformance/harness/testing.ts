/**
 * Support for the suite's own tests (node:test): tiny local servers, an
 * Environment without a target, and a synthetic result set covering every
 * outcome. Not used by the checks.
 */
import type { Check } from './check.ts';
import type { Environment } from './context-types.ts';
import { Secrets } from './secrets.ts';
import type { CheckResult, RunReport } from '../runner/result.ts';

export { localServer, type LocalServer } from './local-server.ts';

export function testEnv(baseUrl: string, overrides: Partial<Environment> = {}): Environment {
  return {
    baseUrl,
    secrets: new Secrets(),
    control: null,
    controlMissing: 'no --control-url was given',
    controlClient: null,
    userToken: null,
    seed: 7,
    runs: 20,
    slow: false,
    fresh: false,
    local: true,
    requestTimeoutMs: 5000,
    receiver: async () => ({ missing: 'no receiver in tests' }),
    runLog: [],
    replayHint: (id) => `--only ${id}`,
    ...overrides,
  };
}

export function testCheck(partial: Partial<Check> & Pick<Check, 'run'>): Check {
  return {
    id: 'meetings/test-check',
    clauses: ['meetings.rename.applies'],
    level: 'requirement',
    needs: [],
    description: 'a check made by a test',
    requirement: 'PATCH /v1/meetings/{id} with {title} renames the meeting, and later reads return the new title.',
    ...partial,
  };
}

const nasty = `</script><script>alert(1)</script> & <b>bold</b> ]]> "quotes" 'apos' \u0001 emoji 🚀 \`\`\` fence`;

/** The fields every synthetic CheckResult shares (reporter tests override what they need). */
export function resultBase() {
  return {
    level: 'requirement' as const,
    needs: [],
    startedAt: '2026-11-20T09:00:00.000Z',
    durationMs: 12,
    completed: true,
    failures: [],
    observations: [],
    notes: [],
    properties: [],
    exchanges: [],
    exchangesOmitted: 0,
    deliveries: [],
  };
}

/** One recorded PATCH of a meeting, with the given request and response bodies. */
export function sampleExchange(requestBody: string, responseBody: string) {
  return {
    seq: 1,
    channel: 'api' as const,
    startedAt: '2026-11-20T09:00:00.000Z',
    durationMs: 3,
    request: {
      method: 'PATCH',
      url: 'http://127.0.0.1:8420/v1/meetings/m1',
      headers: { authorization: 'Bearer $MAS_TOKEN' },
      body: requestBody,
    },
    response: { status: 200, statusText: 'OK', headers: { 'content-type': 'application/json' }, body: responseBody, bodyBytes: 40 },
  };
}

/** A result set with every outcome, nasty text included, for the reporter tests. */
export function syntheticReport(): RunReport {
  const base = resultBase();
  const exchange = {
    ...sampleExchange(JSON.stringify({ title: nasty }), JSON.stringify({ title: nasty })),
    curl: `curl -sS -i -X PATCH 'http://127.0.0.1:8420/v1/meetings/m1' --data-binary '${nasty}'`,
  };
  return syntheticRun([...passedAndFailed(base, exchange), ...otherOutcomes(base)]);
}

type ResultBase = ReturnType<typeof resultBase>;

/** A PASS and a FAIL, both with a recorded exchange; the FAIL with a property's counterexample. */
function passedAndFailed(base: ResultBase, exchange: CheckResult['exchanges'][number]): CheckResult[] {
  return [
    {
      ...base,
      id: 'health/no-auth',
      area: 'health',
      clauses: ['health.no-auth'],
      description: 'passes',
      requirement: 'GET /health needs no Authorization header and answers 200 with the health body.',
      outcome: 'PASS',
      exchanges: [exchange],
    },
    {
      ...base,
      id: 'meetings/rename-title-max-500',
      area: 'meetings',
      clauses: ['meetings.rename.title-max-500'],
      description: `fails ${nasty}`,
      requirement:
        'A rename title of at most 500 characters is accepted, while a longer one is refused with a ' +
        '4xx error and leaves the title unchanged.',
      outcome: 'FAIL',
      exchanges: [exchange],
      failures: [
        {
          clause: 'meetings.rename.title-max-500',
          requirement:
            'A rename title of at most 500 characters is accepted, while a longer one is refused with a ' +
            '4xx error and leaves the title unchanged.',
          what: `PATCH with a 501-character title ${nasty}`,
          expected: ['a 4xx status with the error envelope (422 presumed)'],
          actual: `200 ${nasty}`,
          severity: 'fail',
          exchange: 1,
          curl: exchange.curl,
          property: {
            name: 'title lengths',
            seed: 42,
            numRuns: 7,
            failed: true,
            path: '6:0:1',
            counterexample: `"${nasty}"`,
            shrinks: 3,
            replay: '--only meetings/rename-title-max-500 --seed 42',
          },
          exchanges: [exchange],
        },
      ],
      properties: [{ name: 'title lengths', seed: 42, numRuns: 7, failed: true, path: '6:0:1' }],
    },
  ];
}

/** One result of each other outcome: NON_STRICT, INFORMATIONAL, SKIPPED, ERROR and FLAKY. */
function otherOutcomes(base: ResultBase): CheckResult[] {
  return [
    {
      ...base,
      id: 'config/unknown-section',
      area: 'config',
      clauses: ['config.section.unknown'],
      level: 'conflict',
      description: 'non-strict',
      requirement:
        'A section name outside the eight valid ones is refused, with 404 in one description and ' +
        '422 in another, and the spec does not choose between them.',
      outcome: 'NON_STRICT',
      failures: [
        {
          clause: 'config.section.unknown',
          requirement: 'x',
          what: 'GET /v1/config/nope',
          expected: ['404 not_found'],
          actual: '422',
          severity: 'non_strict',
          alternative: '422 invalid_request',
        },
      ],
    },
    {
      ...base,
      id: 'config/fields-withheld',
      area: 'config',
      clauses: ['config.fields-withheld.gap'],
      level: 'gap',
      description: 'info',
      requirement: 'r',
      outcome: 'INFORMATIONAL',
      observations: [{ clause: 'config.fields-withheld.gap', what: 'vad', actual: nasty }],
    },
    {
      ...base,
      id: 'webhooks/test-single-attempt',
      area: 'webhooks',
      clauses: ['webhooks.test.single-attempt'],
      description: 'skipped',
      requirement: 'r',
      outcome: 'SKIPPED',
      completed: false,
      skipReason: `needs a receiver ${nasty}`,
    },
    {
      ...base,
      id: 'auth/api-disabled',
      area: 'auth',
      clauses: ['auth.api-disabled.403'],
      description: 'error',
      requirement: 'r',
      outcome: 'ERROR',
      completed: false,
      error: { message: `Control API PATCH answered 500 ${nasty}`, stack: 'Error: x\n    at y' },
    },
    {
      ...base,
      id: 'search/no-total',
      area: 'search',
      clauses: ['search.no-total'],
      description: 'flaky',
      requirement: 'r',
      outcome: 'FLAKY',
      retry: { outcome: 'PASS', durationMs: 5, failures: [] },
    },
  ];
}

/** A run report around the given results, with fixed run details (tests of the reporters). */
export function syntheticRun(results: CheckResult[]): RunReport {
  return {
    meta: {
      suite: 'mas-conformance',
      suiteVersion: '0.0.0-test',
      target: { baseUrl: 'http://127.0.0.1:8420', controlUrl: 'http://127.0.0.1:8429', capabilities: ['reset', 'tokens'] },
      startedAt: '2026-11-20T09:00:00.000Z',
      finishedAt: '2026-11-20T09:00:03.000Z',
      seed: 42,
      runs: 20,
      slow: false,
      placeholders: ['$MAS_TOKEN'],
      nodeVersion: 'v24.0.0',
    },
    results,
    suite: results.map((r) => ({ id: r.id, clauses: r.clauses })),
  };
}
