/** The suite's own name and version (reports carry them). */
export const SUITE_NAME = 'mas-conformance';
export const SUITE_VERSION = '0.2.0';
