/**
 * The Control API under test (server/control/app.test.ts and
 * app-fixtures.test.ts): a test gateway with the Control API app beside it,
 * counting restarts and keeping what it logged, and the error-envelope assertion.
 */
import assert from 'node:assert/strict';
import type request from 'supertest';
import { testGateway, type TestGateway } from './gateway.ts';
import { createControlApp } from '../control/app.ts';

export const SECRET = 'control-secret-for-tests-0123456789';
export const AUTH = `Bearer ${SECRET}`;

export interface Harness {
  gw: TestGateway;
  control: ReturnType<typeof createControlApp>;
  restarts: number;
  logged: unknown[];
}

export async function withControl(run: (h: Harness) => Promise<void>, restart?: () => void): Promise<void> {
  const gw = testGateway({ pocketsphinxRoots: [] });
  const h: Harness = { gw, control: undefined as never, restarts: 0, logged: [] };
  h.control = createControlApp({
    secret: SECRET,
    deps: () => gw.deps,
    restart: () => {
      h.restarts += 1;
      restart?.();
    },
    logError: (err) => h.logged.push(err),
  });
  try {
    await run(h);
    assert.deepEqual(gw.errors, []);
  } finally {
    gw.close();
  }
}

export function assertEnvelope(res: request.Response, status: number, code: string): void {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.match(String(res.headers['content-type']), /^application\/json/);
  assert.deepEqual(Object.keys(res.body as object), ['error']);
  assert.equal(res.body.error.code, code);
  assert.equal(typeof res.body.error.message, 'string');
}
