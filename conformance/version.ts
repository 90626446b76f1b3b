/** The suite's own name and version (reports carry them). */
export const SUITE_NAME = 'mas-conformance';
export const SUITE_VERSION = '0.2.0';

/** Sent with every request of the suite, so a target's logs can tell its traffic apart. */
export const USER_AGENT = `${SUITE_NAME}/${SUITE_VERSION}`;
