/**
 * The suite's exit codes, one per outcome a pipeline branches on
 * (docs/decisions/106-conformance-expected-failures-and-exit-codes.md).
 */
export const EXIT = {
  /** Conformant: nothing FAILed or ERRORed beyond the expected failures, and the gate holds. */
  conformant: 0,
  /** A requirement is broken: an unexpected FAIL or ERROR, a stale expected failure, or the gate does not hold. */
  broken: 1,
  /** Bad usage: an unknown option, a bad value, a selection of no check, an unreadable expected-failures file. */
  usage: 2,
  /** The target could not be reached or the run could not start (no answer at the base URL, a setup that failed). */
  unreachable: 3,
} as const;

/** The exit codes as the help text, the README and the CI wrappers state them. */
export const EXIT_STATUS_TEXT = `Exit status: 0 conformant (nothing FAILed or ERRORed beyond --expected-failures, the gate holds);
1 a requirement broken (an unexpected FAIL or ERROR, a stale expected failure, the gate);
2 bad usage; 3 the target could not be reached or the run could not start.`;
