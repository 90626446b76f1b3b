/**
 * The import-boundary rule (eslint.import-boundaries.js, server/README.md)
 * fires on deliberate crossings: the project's own ESLint configuration lints
 * source text given a path inside the tree (no file is written), and the rule
 * must report each crossing and stay quiet on the allowed imports.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
// The fixtures exist as text only, so the type-aware rules (which need the file in the TypeScript
// project) are switched off here; the boundary rule reads import statements and needs no types.
const eslint = new ESLint({ cwd: ROOT, overrideConfig: tseslint.configs.disableTypeChecked });

/** The messages of the boundary rule for `code` linted as the file `file`. */
async function crossings(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${ROOT}${file}` });
  assert.ok(result !== undefined, `no lint result for ${file}`);
  return result.messages.filter((m) => m.ruleId === 'mas/import-boundaries').map((m) => m.message);
}

test("a feature importing another feature's internals is refused; through its index.ts it is not", async () => {
  const internal = await crossings(
    'server/features/meetings/boundary-fixture.ts',
    "import { JobsService } from '../jobs/service.ts';\nexport const x = JobsService;\n",
  );
  assert.equal(internal.length, 1, 'the cross-feature import must be reported');
  assert.match(internal[0]!, /server\/features\/jobs\/index\.ts/);

  const nested = await crossings(
    'server/features/jobs/imports/boundary-fixture.ts',
    "import { MeetingsService } from '../../meetings/service.ts';\nexport const x = MeetingsService;\n",
  );
  assert.equal(nested.length, 1, 'a nested file of a feature is held to the same rule');

  assert.deepEqual(
    await crossings(
      'server/features/recording/boundary-fixture.ts',
      "import { TITLE_MAX } from '../meetings/index.ts';\nexport const x = TITLE_MAX;\n",
    ),
    [],
  );
  assert.deepEqual(
    await crossings(
      'server/features/jobs/imports/boundary-fixture.ts',
      "import { ImportBudget } from '../imports/budget.ts';\nimport { ApiError } from " +
        "'../../../kernel/errors.ts';\nexport const x = [ImportBudget, ApiError];\n",
    ),
    [],
  );
});

test('a feature takes only the handler types from server/, never the composition root', async () => {
  assert.deepEqual(
    await crossings(
      'server/features/search/boundary-fixture.ts',
      "import type { Handler } from '../../http-types.ts';\nexport type X = Handler;\n",
    ),
    [],
  );
  const value = await crossings(
    'server/features/search/boundary-fixture.ts',
    "import { createApp } from '../../app.ts';\nexport const x = createApp;\n",
  );
  assert.equal(value.length, 1);
  const appTypes = await crossings(
    'server/features/search/boundary-fixture.ts',
    "import type { ApiDeps } from '../../app.ts';\nexport type X = ApiDeps;\n",
  );
  assert.equal(appTypes.length, 1, 'app.ts is the router: a feature does not see what it holds');
  const deps = await crossings(
    'server/features/search/boundary-fixture.ts',
    "import type { DepsOptions } from '../../deps.ts';\nexport type X = DepsOptions;\n",
  );
  assert.equal(deps.length, 1, 'deps.ts is the composition root, not a type source for features');
});

test('the kernel imports no feature', async () => {
  const found = await crossings(
    'server/kernel/boundary-fixture.ts',
    "import type { JobsService } from '../features/jobs/index.ts';\nexport type X = JobsService;\n",
  );
  assert.equal(found.length, 1);
});

test('server/ imports simulator/ only from the composition root and the Control API', async () => {
  const code = "import { VirtualDeviceCatalog } from '../../../simulator/devices/catalog.ts';\nexport const x = VirtualDeviceCatalog;\n";
  assert.equal((await crossings('server/features/recording/boundary-fixture.ts', code)).length, 1);
  assert.equal(
    (
      await crossings(
        'server/deps-fixture.ts',
        "import { VirtualDeviceCatalog } from '../simulator/devices/catalog.ts';\nexport const x = VirtualDeviceCatalog;\n",
      )
    ).length,
    1,
  );
  assert.deepEqual(
    await crossings(
      'server/main-fixture.test.ts',
      "import { VirtualDeviceCatalog } from '../simulator/devices/catalog.ts';\nexport const x = VirtualDeviceCatalog;\n",
    ),
    [],
    'tests may',
  );
});

test('conformance/ never imports server/', async () => {
  const found = await crossings(
    'conformance/checks/boundary-fixture.ts',
    "import { ApiError } from '../../server/kernel/errors.ts';\nexport const x = ApiError;\n",
  );
  assert.equal(found.length, 1);
});
