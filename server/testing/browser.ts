/**
 * The real browser of the gateway's browser tests: Debian's chromium driven
 * through playwright-core (browser downloads fail on this machine), started
 * headless with the flags this sandbox needs, and a name that resolves to
 * loopback inside the browser, as a DNS rebinding attack would make it.
 *
 * Imported by *.test.ts files only. (The conformance suite has its own: it
 * never imports server/.)
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';

/** A foreign name the test browser resolves to 127.0.0.1 (the DNS rebinding checks). */
export const REBOUND_NAME = 'rebound.example';

/**
 * The skip reason for a browser test: off CI a missing chromium skips with a
 * named reason; in CI (which installs it) the test runs and fails if it is missing.
 */
export const browserSkip: string | false =
  !existsSync(CHROMIUM) && (process.env.CI ?? '') === ''
    ? `${CHROMIUM} is not installed (apt-get install -y chromium); CI installs it and runs this test`
    : false;

export function launchTestBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      // Without these, chromium's own background connections are refused by this machine's closed network.
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--host-resolver-rules=MAP ${REBOUND_NAME} 127.0.0.1`,
    ],
  });
}
