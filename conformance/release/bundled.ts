/**
 * What the release bundle carries inside itself: every check module and the
 * data files the suite reads (shipped.ts). Empty here, in the checkout: the
 * build (build.ts) replaces this module's contents with the generated list of
 * imports and the base64 of each data file while bundling, so nothing
 * generated is ever committed.
 */
import type { BundledCheck } from '../runner/registry.ts';

/** Every check module, with its file relative to conformance/ (checks/<area>/<name>.check.ts). */
export const bundledChecks: readonly BundledCheck[] = [];

/** Every data file the suite reads at run time, base64, by path relative to the repository root. */
export const bundledFiles: Readonly<Record<string, string>> = {};
