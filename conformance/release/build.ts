/**
 * Builds the conformance suite's release artifacts (docs/decisions/071-conformance-release-artifacts.md):
 *
 *   dist/suite/mas-conformance.mjs          one self-contained JavaScript file (esbuild): every check, every
 *                                           dependency, clauses.json, the shipped speech and meeting scripts;
 *                                           runs on Node 22 and 24, refuses an older Node in one line
 *   dist/suite/mas-conformance-linux-x64    a single executable that needs no Node: the same program bundled as
 *                                           CommonJS (what a Node 24 single executable application runs), injected
 *                                           with postject into a copy of the Node 24 binary of node_modules/node
 *   dist/suite/mas-conformance-<v>.tgz      the npm package (`npm pack --workspace mas-conformance`): the bundle as
 *                                           its bin, no dependencies at all
 *
 *   node conformance/release/build.ts             all three (`make suite`), with each size and the wall time
 *   node conformance/release/build.ts --package   only conformance/dist/ for `npm pack` (the package's prepack)
 *
 * entry.ts is the bundle's entry; bundled.ts, empty in the checkout, is filled in here while bundling with an
 * import of every check file and the base64 of every data file.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';
import type { Plugin } from 'esbuild';
import { SUITE_VERSION } from '../version.ts';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');
export const SUITE_DIR = path.join(ROOT, 'dist', 'suite');
/** The workspace package's build folder, what `npm pack --workspace mas-conformance` ships. */
export const PACKAGE_DIST = path.join(ROOT, 'conformance', 'dist');
export const BUNDLE_NAME = 'mas-conformance.mjs';
export const EXECUTABLE_NAME = 'mas-conformance-linux-x64';
export const TARBALL_NAME = `mas-conformance-${SUITE_VERSION}.tgz`;

/** Data the suite reads at run time, relative to the repository root (shipped.ts reads them by these paths). */
const DATA_FOLDERS = ['conformance/audio', 'fixtures/meetings'] as const;
const DATA_FILES = ['conformance/clauses.json'] as const;
const DATA_FILE = /\.(json|wav|mp3)$/;

/** The Node the single executable is made of: the `node` devDependency (24), never the machine's. */
const requireHere = createRequire(import.meta.url);
const NODE_24 = path.join(path.dirname(requireHere.resolve('node/package.json')), 'bin', 'node');
/** The fuse postject flips so the binary runs the injected blob (Node's single executable applications docs). */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}

/** Every data file, by repository-relative path. */
export function dataFiles(): string[] {
  const out: string[] = [...DATA_FILES];
  for (const folder of DATA_FOLDERS) {
    for (const f of readdirSync(path.join(ROOT, folder), { recursive: true }) as string[]) {
      if (DATA_FILE.test(f)) out.push(`${folder}/${toPosix(f)}`);
    }
  }
  return out.sort();
}

/** Every check file, relative to conformance/ (checks/<area>/<name>.check.ts). */
export function checkFilesForBundle(): string[] {
  const dir = path.join(ROOT, 'conformance', 'checks');
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.check.ts'))
    .map((f) => `checks/${toPosix(f)}`)
    .sort();
}

/** Replaces bundled.ts while bundling: a static import of every check, the base64 of every data file. */
function bundledContents(): Plugin {
  return {
    name: 'mas-conformance-bundled',
    setup(b) {
      b.onLoad({ filter: /[\\/]conformance[\\/]release[\\/]bundled\.ts$/ }, () => {
        const checks = checkFilesForBundle();
        const lines = checks.map((f, i) => `import * as check${i} from '../${f}';`);
        lines.push(
          `export const bundledChecks = [${checks.map((f, i) => `{ file: ${JSON.stringify(f)}, module: check${i} }`).join(',\n')}];`,
        );
        const files = Object.fromEntries(dataFiles().map((rel) => [rel, readFileSync(path.join(ROOT, rel)).toString('base64')]));
        lines.push(`export const bundledFiles = ${JSON.stringify(files)};`);
        return { contents: lines.join('\n'), loader: 'ts', resolveDir: path.join(ROOT, 'conformance', 'release') };
      });
    },
  };
}

/**
 * @seriousme/openapi-schema-validator (openapi/version-3-1) reads its OpenAPI schemas from files beside its
 * index.js (schemas/v<version>/schema.json) when it first validates, a folder the bundle does not have. Its
 * index.js is bundled with those files imported as JSON and its `importJSON` answering from them. The
 * package is an exact devDependency, so the text this rewrites cannot change under the build unnoticed: a
 * version that no longer has it fails the build here.
 */
function validatorSchemas(): Plugin {
  return {
    name: 'mas-conformance-validator-schemas',
    setup(b) {
      b.onLoad({ filter: /[\\/]@seriousme[\\/]openapi-schema-validator[\\/]index\.js$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        const original = 'function importJSON(file) {';
        if (!source.includes(original) || !source.includes('importJSON(`./schemas/v${version}/schema.json`)'))
          throw new Error(`${args.path}: importJSON is not what build.ts expects; see validatorSchemas()`);
        const dir = path.join(path.dirname(args.path), 'schemas');
        const versions = readdirSync(dir).filter((v) => /^v[\d.]+$/.test(v));
        const imports = versions.map((v, i) => `import schema${i} from './schemas/${v}/schema.json';`);
        const table = `const bundledSchemas = { ${versions.map((v, i) => `'./schemas/${v}/schema.json': schema${i}`).join(', ')} };`;
        const lookup =
          'function importJSON(file) {\n  const bundled = bundledSchemas[file];\n  return bundled === undefined ? importJSONFromDisk(file) : structuredClone(bundled);\n}\n';
        const contents = `${imports.join('\n')}\n${source.replace(original, 'function importJSONFromDisk(file) {')}\n${table}\n${lookup}`;
        return { contents, loader: 'js', resolveDir: path.dirname(args.path) };
      });
    },
  };
}

/**
 * Bundles entry.ts. ESM for the .mjs; CommonJS for the single executable (Node 24's runs a CommonJS main
 * script only), where import.meta does not exist: its fields become the CommonJS module's own values.
 */
export async function bundle(outfile: string, format: 'esm' | 'cjs'): Promise<void> {
  mkdirSync(path.dirname(outfile), { recursive: true });
  const define: Record<string, string> = {
    // cli.ts runs itself when it is the main module; in the bundle start.ts runs it, once.
    'import.meta.main': 'false',
  };
  const inject: string[] = [];
  if (format === 'cjs') {
    const shim = path.join(path.dirname(outfile), '.import-meta-shim.js');
    writeFileSync(
      shim,
      "import { pathToFileURL } from 'node:url';\nexport const importMetaUrl = pathToFileURL(__filename).href;\nexport const importMetaFilename = __filename;\nexport const importMetaDirname = __dirname;\n",
    );
    inject.push(shim);
    Object.assign(define, {
      'import.meta.url': 'importMetaUrl',
      'import.meta.filename': 'importMetaFilename',
      'import.meta.dirname': 'importMetaDirname',
    });
  }
  await build({
    entryPoints: [path.join(ROOT, 'conformance', 'release', 'entry.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node22',
    format,
    define,
    inject,
    plugins: [bundledContents(), validatorSchemas()],
    // A bundled CommonJS dependency may require() a Node built-in; an ES module has no require of its own.
    banner: {
      js:
        format === 'esm'
          ? "#!/usr/bin/env node\nimport { createRequire as __masCreateRequire } from 'node:module';\nconst require = __masCreateRequire(import.meta.url);"
          : '',
    },
    legalComments: 'eof',
    logLevel: 'warning',
  });
  if (format === 'esm') chmodSync(outfile, 0o755);
}

function run(cmd: string, args: string[], cwd = ROOT): void {
  const r = spawnSync(cmd, args, { cwd, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
}

/** The single executable: the CommonJS bundle as a Node 24 single executable application (node --experimental-sea-config, postject). */
export async function buildExecutable(outfile: string): Promise<void> {
  const work = path.join(path.dirname(outfile), '.sea');
  rmSync(work, { recursive: true, force: true });
  const main = path.join(work, 'mas-conformance.cjs');
  await bundle(main, 'cjs');
  const blob = path.join(work, 'sea-prep.blob');
  const config = path.join(work, 'sea-config.json');
  writeFileSync(config, JSON.stringify({ main, output: blob, disableExperimentalSEAWarning: true }, null, 2));
  // The blob must be made by the very Node binary it is injected into.
  run(NODE_24, [`--experimental-sea-config=${config}`]);
  copyFileSync(NODE_24, outfile);
  chmodSync(outfile, 0o755);
  run(NODE_24, [requireHere.resolve('postject/dist/cli.js'), outfile, 'NODE_SEA_BLOB', blob, `--sentinel-fuse=${SEA_FUSE}`]);
  rmSync(work, { recursive: true, force: true });
}

/** conformance/dist/: what the workspace package ships (its bin is the bundle; package.json "files"). */
export async function buildPackageDist(): Promise<void> {
  rmSync(PACKAGE_DIST, { recursive: true, force: true });
  await bundle(path.join(PACKAGE_DIST, BUNDLE_NAME), 'esm');
  // npm packs a LICENSE only from the package's own folder; the repository's one lives at the root.
  copyFileSync(path.join(ROOT, 'LICENSE'), path.join(PACKAGE_DIST, 'LICENSE'));
}

function megabytes(file: string): string {
  return `${(statSync(file).size / 1024 / 1024).toFixed(1)} MB`;
}

export async function buildAll(): Promise<string[]> {
  rmSync(SUITE_DIR, { recursive: true, force: true });
  mkdirSync(SUITE_DIR, { recursive: true });
  const bundleFile = path.join(SUITE_DIR, BUNDLE_NAME);
  await bundle(bundleFile, 'esm');
  const executable = path.join(SUITE_DIR, EXECUTABLE_NAME);
  await buildExecutable(executable);
  // npm runs the package's prepack (build.ts --package), which bundles conformance/dist/ afresh.
  run('npm', ['pack', '--workspace=mas-conformance', `--pack-destination=${SUITE_DIR}`, '--loglevel=warn']);
  return [bundleFile, executable, path.join(SUITE_DIR, TARBALL_NAME)];
}

if (import.meta.main) {
  const started = Date.now();
  if (process.argv.includes('--package')) {
    await buildPackageDist();
    process.stdout.write(`conformance/dist/${BUNDLE_NAME}: ${megabytes(path.join(PACKAGE_DIST, BUNDLE_NAME))}\n`);
  } else {
    for (const file of await buildAll()) process.stdout.write(`${path.relative(ROOT, file)}: ${megabytes(file)}\n`);
    process.stdout.write(`built in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  }
}
