/** The version reported by /health and /v1/whoami: the package version. */
import pkg from '../../package.json' with { type: 'json' };

export const SERVER_VERSION: string = pkg.version;
