/**
 * The folder rules of .dependency-cruiser.js fire on deliberate crossings and
 * stay quiet on the allowed imports: a small tree of files laid out like the
 * repository (server/features/…, simulator/, conformance/, common/, cli/) is written
 * to a temporary folder and cruised with the project's own configuration, and
 * the violations found must be exactly the crossings planted in it. A second
 * test reads server/ itself: only the media store names the media folders.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const CONFIG = path.join(ROOT, '.dependency-cruiser.js');
// The package exports no bin path; its command is the file npm links as node_modules/.bin/depcruise.
const DEPCRUISE = path.join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruiser.mjs');

/** The planted tree: file → its source. Every import names a file of the tree, so only the rules can object. */
const TREE: Record<string, string> = {
  'server/kernel/errors.ts': 'export const ApiError = 1;\n',
  'server/adapters/devices.ts': "import type { DeviceCatalog } from '../../common/devices.ts';\nexport type X = DeviceCatalog;\n",
  'server/app.ts': 'export const createApp = 1;\nexport type ApiDeps = number;\n',
  'server/http-types.ts': 'export type Handler = number;\nexport const HANDLER_KINDS = [];\n',
  'server/operations.ts': "import { JOB_OPERATIONS } from './features/jobs/operations.ts';\nexport const OPERATIONS = [JOB_OPERATIONS];\n",
  'server/handlers.ts':
    "import { jobHandlers } from './features/jobs/handlers.ts';\nimport { JOB_OPERATIONS } from './features/jobs/operations.ts';\nexport const x = [jobHandlers, JOB_OPERATIONS];\n",
  'server/deps.ts':
    "import { VirtualDeviceCatalog } from '../simulator/devices/catalog.ts';\nexport const createDeps = VirtualDeviceCatalog;\nexport type DepsOptions = number;\n",
  'server/main.ts': "import { VirtualDeviceCatalog } from '../simulator/devices/catalog.ts';\nexport const x = VirtualDeviceCatalog;\n",
  'server/main-fixture.test.ts':
    "import { VirtualDeviceCatalog } from '../simulator/devices/catalog.ts';\nexport const x = VirtualDeviceCatalog;\n",
  'server/control/app.ts': "import { scene } from '../../simulator/scenes/scene.ts';\nexport const x = scene;\n",
  'server/control/internal.ts': "import { JobsService } from '../features/jobs/service.ts';\nexport const x = JobsService;\n",
  'server/control/through-index.ts': "import { JobsService } from '../features/jobs/index.ts';\nexport const x = JobsService;\n",
  'server/control/from-root.ts': "import type { DepsOptions } from '../deps.ts';\nexport type X = DepsOptions;\n",
  'server/features/jobs/service.ts': 'export const JobsService = 1;\n',
  'server/features/speakers/service.ts': 'export const SpeakersService = 1;\n',
  'server/features/speakers/index.ts': "export { SpeakersService } from './service.ts';\n",
  'server/control/speakers-through-index.ts':
    "import type { SpeakersService } from '../features/speakers/index.ts';\nexport type X = typeof SpeakersService;\n",
  'server/features/jobs/index.ts': "export { JobsService } from './service.ts';\n",
  'server/features/jobs/operations.ts': 'export const JOB_OPERATIONS = [];\n',
  'server/features/jobs/handlers.ts': 'export const jobHandlers = {};\n',
  'server/features/jobs/imports/budget.ts':
    "import { ApiError } from '../../../kernel/errors.ts';\nimport { JobsService } from '../service.ts';\nexport const x = [ApiError, JobsService];\n",
  'server/features/meetings/internal.ts': "import { JobsService } from '../jobs/service.ts';\nexport const x = JobsService;\n",
  'server/features/meetings/through-index.ts': "import { JobsService } from '../jobs/index.ts';\nexport const x = JobsService;\n",
  'server/features/search/type-from-http-types.ts': "import type { Handler } from '../../http-types.ts';\nexport type X = Handler;\n",
  'server/features/search/value-from-http-types.ts':
    "import { HANDLER_KINDS } from '../../http-types.ts';\nexport const x = HANDLER_KINDS;\n",
  'server/features/search/type-from-app.ts': "import type { ApiDeps } from '../../app.ts';\nexport type X = ApiDeps;\n",
  'server/features/search/value-from-app.ts': "import { createApp } from '../../app.ts';\nexport const x = createApp;\n",
  'server/features/search/type-from-deps.ts': "import type { DepsOptions } from '../../deps.ts';\nexport type X = DepsOptions;\n",
  'server/features/system/openapi.ts': "import { OPERATIONS } from '../../operations.ts';\nexport const x = OPERATIONS;\n",
  'server/features/recording/simulator.ts':
    "import { VirtualDeviceCatalog } from '../../../simulator/devices/catalog.ts';\nexport const x = VirtualDeviceCatalog;\n",
  'server/pipeline/types.ts': 'export const CancelledError = 1;\nexport interface Recognizer { name: string }\n',
  'server/work/run-queue.ts': "import { CancelledError } from '../pipeline/types.ts';\nexport const RunQueue = CancelledError;\n",
  'server/work/feature.ts': "import type { JobsService } from '../features/jobs/index.ts';\nexport type X = typeof JobsService;\n",
  'server/features/jobs/queue.ts': "import { RunQueue } from '../../work/run-queue.ts';\nexport const x = RunQueue;\n",
  'server/media/media-store.ts':
    "import { rmSync } from 'node:fs';\nimport { join } from 'node:path';\nimport type { Recognizer } from '../pipeline/types.ts';\nexport const MediaStore = [rmSync, join];\nexport type X = Recognizer;\n",
  'server/media/feature.ts': "import type { JobsService } from '../features/jobs/index.ts';\nexport type X = typeof JobsService;\n",
  'server/features/jobs/upload.ts': "import { MediaStore } from '../../media/media-store.ts';\nexport const x = MediaStore;\n",
  'server/features/recording/own-file.ts': "import { writeFileSync } from 'node:fs';\nexport const x = writeFileSync;\n",
  'server/features/meetings/own-path.ts': "import { join } from 'path';\nexport const x = join;\n",
  'server/features/meetings/own-path.test.ts': "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n",
  'server/kernel/feature.ts': "import type { JobsService } from '../features/jobs/index.ts';\nexport type X = typeof JobsService;\n",
  'server/pipeline/types-from-index.ts':
    "import type { JobsService } from '../features/jobs/index.ts';\nexport type X = typeof JobsService;\n",
  'server/pipeline/value-from-index.ts': "import { JobsService } from '../features/jobs/index.ts';\nexport const x = JobsService;\n",
  'server/pipeline/internal.ts': "import type { JobsService } from '../features/jobs/service.ts';\nexport type X = typeof JobsService;\n",
  'server/pipeline/cycle-a.ts': "import type { B } from './cycle-b.ts';\nexport type A = B | 1;\n",
  'server/pipeline/cycle-b.ts': "import type { A } from './cycle-a.ts';\nexport type B = A | 2;\n",
  'server/pipeline/stale.ts': "import { gone } from './no-such-file.ts';\nexport const x = gone;\n",
  'server/pipeline/from-adapter.ts': "import { recognizer } from '../adapters/asr/recognizer.ts';\nexport const x = recognizer;\n",
  'server/adapters/asr/recognizer.ts':
    "import type { Recognizer } from '../../pipeline/types.ts';\nexport const recognizer: Recognizer = { name: 'r' };\n",
  'simulator/scenes/scene.ts': 'export const scene = 1;\n',
  'simulator/devices/catalog.ts':
    "import type { DeviceCatalog } from '../../common/devices.ts';\nexport const VirtualDeviceCatalog = 1;\nexport type X = DeviceCatalog;\n",
  'simulator/devices/gateway.ts': "import { ApiError } from '../../server/kernel/errors.ts';\nexport const x = ApiError;\n",
  'conformance/checks/server.ts': "import { ApiError } from '../../server/kernel/errors.ts';\nexport const x = ApiError;\n",
  'conformance/checks/simulator.ts': "import { scene } from '../../simulator/scenes/scene.ts';\nexport const x = scene;\n",
  'conformance/checks/common.ts': "import type { DeviceCatalog } from '../../common/devices.ts';\nexport type X = DeviceCatalog;\n",
  'common/devices.ts': 'export interface DeviceCatalog { list(): string[] }\n',
  'client/spec-values.ts': 'export const CONFIG_SECTIONS = [];\n',
  'cli/commands/config.ts': "import { CONFIG_SECTIONS } from '../../client/spec-values.ts';\nexport const x = CONFIG_SECTIONS;\n",
  'cli/commands/copied.ts': "import { ApiError } from '../../server/kernel/errors.ts';\nexport const x = ApiError;\n",
  'common/gateway.ts': "import { ApiError } from '../server/kernel/errors.ts';\nexport const x = ApiError;\n",
  'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'nodenext', allowImportingTsExtensions: true, noEmit: true } }),
};

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

test('the dependency rules refuse each planted crossing and nothing else', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'mas-dependency-rules-'));
  try {
    for (const [file, text] of Object.entries(TREE)) {
      await mkdir(path.join(dir, path.dirname(file)), { recursive: true });
      await writeFile(path.join(dir, file), text);
    }
    // depcruise exits non-zero when it finds violations; the JSON report is on stdout either way.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [DEPCRUISE, `--config=${CONFIG}`, '--output-type=json', 'server', 'simulator', 'conformance', 'common', 'cli', 'client'],
      { cwd: dir, maxBuffer: 16 * 1024 * 1024 },
    ).catch((err: unknown) => err as { stdout: string });
    const report = JSON.parse(stdout) as { summary: { violations: Violation[] } };
    const found = report.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
    assert.deepEqual(
      found,
      [
        'cli-speaks-through-the-client: cli/commands/copied.ts → server/kernel/errors.ts',
        'common-is-a-leaf: common/gateway.ts → server/kernel/errors.ts',
        'control-receives-its-services: server/control/from-root.ts → server/deps.ts',
        'conformance-is-a-black-box: conformance/checks/common.ts → common/devices.ts',
        'conformance-is-a-black-box: conformance/checks/server.ts → server/kernel/errors.ts',
        'conformance-is-a-black-box: conformance/checks/simulator.ts → simulator/scenes/scene.ts',
        'feature-imports-shared-layers: server/features/search/type-from-deps.ts → server/deps.ts',
        // A feature never sees the composition root, not even its types (decision 084); the handler types are http-types.ts's.
        'feature-imports-shared-layers: server/features/search/type-from-app.ts → server/app.ts',
        'feature-imports-shared-layers: server/features/search/value-from-app.ts → server/app.ts',
        'feature-takes-types-from-root: server/features/search/value-from-http-types.ts → server/http-types.ts',
        'feature-through-index: server/features/meetings/internal.ts → server/features/jobs/service.ts',
        // Outside the features too, a feature is reached only through its index.ts; the table files read rows and handlers.
        'outside-a-feature-only-its-index: server/control/internal.ts → server/features/jobs/service.ts',
        'outside-a-feature-only-its-index: server/pipeline/internal.ts → server/features/jobs/service.ts',
        'table-reads-rows-and-handlers: server/handlers.ts → server/features/jobs/operations.ts',
        'kernel-imports-kernel-and-adapters: server/kernel/feature.ts → server/features/jobs/index.ts',
        // Features hand the media store ids; only the store opens, moves and names audio files (decision 125).
        'feature-hands-media-ids-not-paths: server/features/meetings/own-path.ts → path',
        'feature-hands-media-ids-not-paths: server/features/recording/own-file.ts → fs',
        'media-imports-kernel-only: server/media/feature.ts → server/features/jobs/index.ts',
        // The run queue serves the features and knows none of them (decision 117).
        'work-imports-no-feature: server/work/feature.ts → server/features/jobs/index.ts',
        // A cycle is reported once, at the import that closes it; it is made of type imports only, and still counts.
        'no-cycle: server/pipeline/cycle-a.ts → server/pipeline/cycle-b.ts',
        'not-to-unresolvable: server/pipeline/stale.ts → ./no-such-file.ts',
        'pipeline-and-adapters-import-no-feature: server/pipeline/internal.ts → server/features/jobs/service.ts',
        // The adapters import the pipeline's contracts; the pipeline importing an adapter back is the one direction refused.
        'pipeline-imports-no-adapter: server/pipeline/from-adapter.ts → server/adapters/asr/recognizer.ts',
        // The pipeline is handed its settings: not even a feature's types (decision 084).
        'pipeline-and-adapters-import-no-feature: server/pipeline/types-from-index.ts → server/features/jobs/index.ts',
        'pipeline-and-adapters-import-no-feature: server/pipeline/value-from-index.ts → server/features/jobs/index.ts',
        'server-imports-simulator-only-from-root-and-control: server/deps.ts → simulator/devices/catalog.ts',
        'server-imports-simulator-only-from-root-and-control: server/features/recording/simulator.ts → simulator/devices/catalog.ts',
        'simulator-does-not-import-server: simulator/devices/gateway.ts → server/kernel/errors.ts',
      ].sort(),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/**
 * The media store's layout is named in one folder only: outside server/media/
 * no production file of server/ spells the media folders or the store's
 * temporary-name prefixes as a string (tests may: they check that the layout
 * of existing data folders stays as it was). With the import rule above, a
 * new place that builds a media path fails here (decision 125).
 */
test('only the media store names the media folders', async () => {
  const LAYOUT = /['"`](uploads|recordings)['"`/]|['"`]\.(partial|capture|pending|tmp)-/;
  const offenders: string[] = [];
  const server = path.join(ROOT, 'server');
  for (const entry of await readdir(server, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.(ts|js)$/.test(entry.name) || /\.test\.ts$/.test(entry.name)) continue;
    const file = path.relative(ROOT, path.join(entry.parentPath, entry.name)).split(path.sep).join('/');
    if (file.startsWith('server/media/') || file.startsWith('server/testing/')) continue;
    const text = await readFile(path.join(ROOT, file), 'utf8');
    text.split('\n').forEach((line, i) => {
      if (LAYOUT.test(line)) offenders.push(`${file}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(offenders, []);
});
