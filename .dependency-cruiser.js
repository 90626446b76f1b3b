// The folder rules of the repository (server/README.md, ARCHITECTURE.md,
// common/README.md), checked by dependency-cruiser over every import:
// `npm run lint:deps` fails on a cycle or on an import that crosses them, and
// server/dependency-rules.test.ts shows each rule firing on a deliberate one.
// Decision: docs/decisions/090-structure-checked-by-dependency-cruiser-and-knip.md.
//
// Type-only imports count (tsPreCompilationDeps): a cycle through `import type`
// is still a cycle for whoever reads the code, and a feature reaching another
// feature's internals for a type still depends on them.

/** Tests and test helpers may cross the production boundaries to build what they test. */
const TESTS = '(\\.test\\.ts|\\.slow-test\\.ts|\\.check\\.ts)$|^server/testing/';

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'An import cycle (type imports included): one of the two files belongs in a third, or one side takes a type module.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that names no file or package: a stale path.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'feature-through-index',
      comment:
        "A feature (server/features/<name>/) uses another feature only through that feature's index.ts, never its internals (server/README.md).",
      severity: 'error',
      from: { path: '^server/features/([^/]+)/', pathNot: TESTS },
      to: { path: '^server/features/', pathNot: ['^server/features/$1/', '^server/features/[^/]+/index\\.ts$'] },
    },
    {
      name: 'outside-a-feature-only-its-index',
      comment:
        'Outside server/features/ (the composition root, the Control API, the run queue …) a feature is imported only through its index.ts, what it offers the rest of the gateway; the two table files are the one exception (next rule).',
      severity: 'error',
      from: { path: '^server/', pathNot: [TESTS, '^server/features/', '^server/(operations|handlers)\\.ts$'] },
      to: { path: '^server/features/', pathNot: '^server/features/[^/]+/index\\.ts$' },
    },
    {
      name: 'table-reads-rows-and-handlers',
      comment:
        "server/operations.ts assembles every feature's rows (features/<name>/operations.ts) and server/handlers.ts every feature's handlers (features/<name>/handlers.ts); otherwise they too import only index.ts. The rows and handlers stay out of index.ts because a handler's types come from the assembled table (http-types.ts → operations.ts): through index.ts that would be a cycle.",
      severity: 'error',
      from: { path: '^server/(operations|handlers)\\.ts$' },
      to: { path: '^server/features/', pathNot: ['^server/features/[^/]+/index\\.ts$', '^server/features/[^/]+/$1\\.ts$'] },
    },
    {
      name: 'feature-imports-shared-layers',
      comment:
        'A feature imports the kernel, the adapters, the pipeline, the run queue (work/), the media store (media/) and its own files; of server/ itself only types from http-types.ts and operations.ts (never app.ts or deps.ts: a feature never sees the composition root, decision 084).',
      severity: 'error',
      from: { path: '^server/features/', pathNot: TESTS },
      to: {
        path: '^server/',
        pathNot: ['^server/(kernel|adapters|pipeline|features|work|media)/', '^server/(http-types|operations)\\.ts$'],
      },
    },
    {
      name: 'feature-hands-media-ids-not-paths',
      comment:
        "Uploaded and recorded audio belongs to the media store (server/media/, decision 125): a feature holds media ids and hands them over; it opens, writes, moves or names no file itself, so it imports neither node:fs nor node:path. The store's folder layout is then the one place that changes when media moves.",
      severity: 'error',
      from: { path: '^server/features/', pathNot: TESTS },
      to: { dependencyTypes: ['core'], path: '^(node:)?(fs|fs/promises|path)$' },
    },
    {
      name: 'media-imports-kernel-only',
      comment:
        "The media store (server/media/) serves the features and the composition root; it imports only itself, the kernel and the pipeline's AudioSource contract (pipeline/types.ts), never a feature.",
      severity: 'error',
      from: { path: '^server/media/', pathNot: TESTS },
      to: { path: '^server/', pathNot: ['^server/(media|kernel)/', '^server/pipeline/types\\.ts$'] },
    },
    {
      name: 'feature-takes-types-from-root',
      comment:
        'A feature takes only types from server/http-types.ts and server/operations.ts; the one value import is the manifest (features/system/openapi.ts reads the assembled table, since /openapi.json describes every row).',
      severity: 'error',
      from: { path: '^server/features/', pathNot: [TESTS, '^server/features/system/openapi\\.ts$'] },
      to: { path: '^server/(http-types|operations)\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'manifest-reads-only-the-table',
      comment: 'The manifest may read the assembled table (operations.ts) as a value, and http-types.ts only for types.',
      severity: 'error',
      from: { path: '^server/features/system/openapi\\.ts$' },
      to: { path: '^server/http-types\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'work-imports-no-feature',
      comment:
        "server/work/ (the run queue and the ordered workers, decision 117) is used by the features and the composition root; it imports only itself, the kernel and the pipeline's stage control (pipeline/types.ts), never a feature.",
      severity: 'error',
      from: { path: '^server/work/', pathNot: TESTS },
      to: { path: '^server/', pathNot: ['^server/(work|kernel)/', '^server/pipeline/types\\.ts$'] },
    },
    {
      name: 'kernel-imports-kernel-and-adapters',
      comment: 'The kernel imports only the kernel and the adapters (server/README.md).',
      severity: 'error',
      from: { path: '^server/kernel/', pathNot: TESTS },
      to: { path: '^server/', pathNot: '^server/(kernel|adapters)/' },
    },
    {
      name: 'pipeline-and-adapters-import-no-feature',
      comment:
        'The pipeline and the adapters import no feature, no Control API file and no composition-root file: the caller hands the pipeline its settings (decision 084).',
      severity: 'error',
      from: { path: '^server/(pipeline|adapters)/', pathNot: TESTS },
      to: { path: ['^server/features/', '^server/control/', '^server/[^/]+\\.ts$'] },
    },
    {
      name: 'control-receives-its-services',
      comment:
        'The Control API (server/control/) is a table of routes whose handlers get the services they declare; it never imports the composition root (app.ts, deps.ts, gateway.ts, main.ts, any file of server/ itself): gateway.ts hands it the services.',
      severity: 'error',
      from: { path: '^server/control/', pathNot: TESTS },
      to: { path: '^server/[^/]+\\.ts$' },
    },
    {
      name: 'pipeline-imports-no-adapter',
      comment:
        'The adapters implement the contracts of the pipeline (server/pipeline/types.ts) and import it; the pipeline never imports an adapter back, so the two go one way. The composition root (server/real-pipeline.ts) hands the pipeline its adapters (decision 087, amended).',
      severity: 'error',
      from: { path: '^server/pipeline/', pathNot: TESTS },
      to: { path: '^server/adapters/' },
    },
    {
      name: 'server-imports-simulator-only-from-root-and-control',
      comment:
        'server/ imports simulator/ only from the composition root (server/main.ts plugs the virtual devices in) and the Control API (server/control/: CONTROL.md drives the simulator); tests and server/testing/ may.',
      severity: 'error',
      from: { path: '^server/', pathNot: [TESTS, '^server/main\\.ts$', '^server/control/'] },
      to: { path: '^simulator/' },
    },
    {
      name: 'simulator-does-not-import-server',
      comment:
        'The simulator implements the ports of common/devices.ts and never imports the gateway: the gateway plugs the simulator in, not the other way round.',
      severity: 'error',
      from: { path: '^simulator/' },
      to: { path: '^server/' },
    },
    {
      name: 'conformance-is-a-black-box',
      comment:
        "conformance/ is shipped alone and tests any gateway from outside: it never imports server/, common/ or any other folder of the repository. The one exception is the simulator's meeting-script reader and its seeded random numbers (simulator/scripts/, simulator/seeded-random.ts), which the suite's fixtures use and its bundle carries (decision 056); they import nothing of the gateway.",
      severity: 'error',
      from: { path: '^conformance/' },
      to: { path: '^(server|simulator|common|bench|cli|client)/', pathNot: ['^simulator/scripts/', '^simulator/seeded-random\\.ts$'] },
    },
    {
      name: 'cli-speaks-through-the-client',
      comment:
        'The command line (cli/) knows the gateway only through the typed client and its generated values (client/openapi-types.ts, client/routes.ts, client/spec-values.ts): never server/ itself, so nothing of the spec is copied into it by hand (decision 116). Its tests may start a gateway.',
      severity: 'error',
      from: { path: '^cli/', pathNot: TESTS },
      to: { path: '^server/' },
    },
    {
      name: 'common-is-a-leaf',
      comment: 'common/ imports only Node, npm packages and common/ itself (common/README.md).',
      severity: 'error',
      from: { path: '^common/' },
      to: { path: '^(server|simulator|conformance|bench|cli|client)/' },
    },
  ],
  options: {
    // Every folder's imports are judged, none of node_modules' own.
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|conformance/dist|reports|data|\\.tmp)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
    moduleSystems: ['es6', 'cjs'],
  },
};
