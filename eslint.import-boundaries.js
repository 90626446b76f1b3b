// The import boundaries of the gateway's floor plan (server/README.md), as one
// lint rule: `npm run lint` fails on an import that crosses them, and
// server/import-boundaries.test.ts shows it failing on a deliberate one.
//
// The rule resolves every relative import against the importing file, so it
// judges where the import lands, not how its path is spelt:
//   - a feature (server/features/<name>/) imports the kernel, the adapters, the
//     pipeline and its own files; another feature only through that feature's
//     index.ts; server/http-types.ts and operations.ts only for types (the
//     handler and operation id types); nothing else of server/ (not app.ts,
//     not deps.ts: a feature never sees the composition root, decision 084);
//   - the kernel (server/kernel/) imports the kernel and the adapters only;
//   - the pipeline and the adapters import no feature and no composition-root
//     file (the caller hands the pipeline its settings);
//   - no file of server/ imports simulator/, except the composition root
//     (server/main.ts) and the Control API (server/control/, CONTROL.md: the
//     simulator's devices and scenes are what it drives); tests and
//     server/testing/ may;
//   - conformance/ never imports server/ (the suite is a black box).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.dirname(fileURLToPath(import.meta.url));

/** The repository-relative, forward-slash path of an absolute file path. */
function rel(file) {
  return path.relative(ROOT, file).split(path.sep).join('/');
}

function isTest(file) {
  return /\.test\.ts$|\.slow-test\.ts$|\.check\.ts$/.test(file) || file.startsWith('server/testing/');
}

/** Files every feature may use as values: shared layers. */
const SHARED_PREFIXES = ['server/kernel/', 'server/adapters/', 'server/pipeline/', 'server/audio/'];
/** Composition-root files a feature may import types from (never values). */
const TYPE_ONLY_FROM_ROOT = new Set(['server/http-types.ts', 'server/operations.ts']);
/**
 * The one value import of the assembled table by a feature: the manifest of
 * the whole API (GET /openapi.json) is built from every row.
 */
const MANIFEST = { from: 'server/features/system/openapi.ts', to: 'server/operations.ts' };

function featureOf(file) {
  const m = /^server\/features\/([^/]+)\//.exec(file);
  return m === null ? null : m[1];
}

/** Why `from` may not import `to`, or null when it may. */
export function boundaryViolation(from, to, typeOnly) {
  if (from.startsWith('conformance/') && to.startsWith('server/'))
    return 'conformance/ never imports server/: the suite tests any gateway from outside';
  if (!from.startsWith('server/') || isTest(from)) return null;
  if (to.startsWith('simulator/') && from !== 'server/main.ts' && !from.startsWith('server/control/')) {
    return 'server/ does not import simulator/: depend on the device backend (server/adapters/devices.ts); server/main.ts plugs the simulator in';
  }
  const feature = featureOf(from);
  if (feature !== null) {
    if (!to.startsWith('server/')) return null;
    if (to.startsWith(`server/features/${feature}/`)) return null;
    const other = featureOf(to);
    if (other !== null)
      return to === `server/features/${other}/index.ts`
        ? null
        : `a feature uses another feature only through its index.ts (server/features/${other}/index.ts), never its internals`;
    if (SHARED_PREFIXES.some((p) => to.startsWith(p))) return null;
    if (TYPE_ONLY_FROM_ROOT.has(to) && (typeOnly || (from === MANIFEST.from && to === MANIFEST.to))) return null;
    return 'a feature imports the kernel, the adapters, the pipeline and its own files (types only from server/http-types.ts and server/operations.ts)';
  }
  if (from.startsWith('server/kernel/')) {
    if (to.startsWith('server/') && !to.startsWith('server/kernel/') && !to.startsWith('server/adapters/'))
      return 'the kernel imports only the kernel and the adapters';
    return null;
  }
  if (from.startsWith('server/pipeline/') || from.startsWith('server/adapters/')) {
    // The transcription is handed its settings by its caller (features/config reads them): no feature is needed here.
    if (featureOf(to) !== null || to.startsWith('server/control/') || /^server\/[^/]+\.ts$/.test(to))
      return 'the pipeline and the adapters import no feature and no composition-root file';
  }
  return null;
}

/** @type {import('eslint').Rule.RuleModule} */
const rule = {
  meta: {
    type: 'problem',
    schema: [],
    docs: { description: 'keeps the imports of the floor plan in server/README.md' },
    messages: { crossed: '{{why}} (import of {{to}})' },
  },
  create(context) {
    const from = rel(context.filename);
    const check = (node, source, typeOnly) => {
      if (source === null || typeof source.value !== 'string' || !source.value.startsWith('.')) return;
      const to = rel(path.resolve(path.dirname(context.filename), source.value));
      const why = boundaryViolation(from, to, typeOnly);
      if (why !== null) context.report({ node: source, messageId: 'crossed', data: { why, to } });
    };
    return {
      ImportDeclaration(node) {
        const typeOnly =
          node.importKind === 'type' || (node.specifiers.length > 0 && node.specifiers.every((s) => s.importKind === 'type'));
        check(node, node.source, typeOnly);
      },
      ExportNamedDeclaration(node) {
        check(node, node.source, node.exportKind === 'type');
      },
      ExportAllDeclaration(node) {
        check(node, node.source, node.exportKind === 'type');
      },
      ImportExpression(node) {
        check(node, node.source.type === 'Literal' ? node.source : null, false);
      },
    };
  },
};

export default { rules: { 'import-boundaries': rule } };
