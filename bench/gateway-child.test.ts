/**
 * The bench's gateway child with a Control API secret that begins with `-`:
 * a random base64url secret does about one time in 64, and passed as an
 * argument of its own (`--control-secret -xyz…`) the gateway's parseArgs read
 * it as an option and refused to start ("argument is ambiguous"). It goes as
 * `--control-secret=<secret>` now; this start failed before that.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { startGatewayChild } from './gateway-child.ts';

test('the gateway child starts with a control secret beginning with "-" and the Control API accepts it', async () => {
  const controlSecret = `-${randomBytes(24).toString('base64url')}`;
  const gw = await startGatewayChild({ controlSecret });
  try {
    assert.equal(gw.controlSecret, controlSecret);
    // A Control API call authenticated with that secret: the gateway took the whole value as the secret.
    const settings = await gw.control<Record<string, unknown>>('GET', '/control/settings');
    assert.equal(typeof settings, 'object');
  } finally {
    await gw.stop();
  }
});
