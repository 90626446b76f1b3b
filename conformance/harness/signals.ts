/** Exceptions that steer a check's outcome (anything else thrown is an ERROR). */

/** The check cannot run here: SKIPPED, with the missing precondition named. */
export class SkipSignal extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(`skipped: ${reason}`);
    this.name = 'SkipSignal';
    this.reason = reason;
  }
}

/** A hard expectation failed and was recorded; the check stops here. */
export class StopCheck extends Error {
  constructor() {
    super('stopped after a failed requirement');
    this.name = 'StopCheck';
  }
}

/**
 * The harness could not set up what the check needs through the Control API
 * (an answer other than CONTROL.md's): ERROR, not FAIL, since the Automation
 * API itself was not at fault.
 */
export class ControlError extends Error {
  readonly curl: string | undefined;
  constructor(message: string, curl?: string) {
    super(message);
    this.name = 'ControlError';
    this.curl = curl;
  }
}
