/**
 * knip: no unused file, export, type or dependency (`npm run lint:unused`;
 * docs/decisions/090-structure-checked-by-dependency-cruiser-and-knip.md).
 *
 * knip follows imports from entry files; everything not reached is unused.
 * The entries are what something runs: the npm scripts (knip reads
 * package.json itself), the tests (node --test globs), and the files below
 * that are run by path or by hand rather than imported. Each says why.
 */
import type { KnipConfig } from 'knip';

const config: KnipConfig = {
  // System tools the code and tests run (the Debian packages of the Makefile, and the base system's).
  ignoreBinaries: ['ffmpeg', 'ffprobe', 'espeak-ng', 'flite', 'parec', 'pactl', 'perl', 'openssl', 'script', 'mount', 'umount'],
  workspaces: {
    '.': {
      entry: [
        // The unit tests, as npm test's node --test globs find them.
        '{common,server,simulator,bench,client,cli}/**/*.test.ts',
        // The typed client is usable on its own, webhook verification included (README.md): its exports are its API.
        'client/client.ts',
        'client/webhook.ts',
        // Started as child processes by path (bench/load.ts, bench/core.ts: `servers/${name}.ts`).
        'bench/servers/*.ts',
        // Served to the browser as a file (server/control/settings-page/index.ts: asset('app.js')); the page's
        // other modules are reached through its imports.
        'server/control/settings-page/assets/app.js',
        // Run by hand, as their headers and the decisions say: measurements and renderers of committed data.
        'bench/conformance-speed.ts',
        'bench/qmsum-render.ts',
        'bench/resample.ts',
        'bench/quality-real-speech.ts',
        'bench/quality-diarizer.ts',
        'bench/pipeline-vs-stock.ts',
        'bench/decode-seams.ts',
        'bench/ami-statistics.ts',
        'bench/dynamics-fit.ts',
        'bench/truth-formats-agreement.ts',
        'bench/voiceprint-choice.ts',
        'bench/voiceprint-cost.ts',
        'simulator/synth/evaluate-word-times.ts',
        'simulator/synth/measure-recognition.ts',
        'simulator/render-conformance-speech.ts',
      ],
      project: ['{common,server,simulator,bench,client,cli}/**/*.{ts,js}', '*.{ts,js}'],
      // Run by its file path, not imported: conformance/release/build.ts injects the single executable's blob with it.
      ignoreDependencies: ['postject'],
    },
    conformance: {
      entry: [
        '**/*.test.ts',
        '**/*.slow-test.ts',
        // Found by conformance/runner/registry.ts reading checks/ (readdirSync), and imported by the bundle.
        'checks/**/*.check.ts',
        // The bundle's entry (release/build.ts hands it to esbuild).
        'release/entry.ts',
        // Run by hand (conformance/README.md: what an implementer sees when one rule breaks).
        'mutants/run-mutant-cli.ts',
      ],
      project: ['**/*.ts'],
      // The bundle carries the simulator's meeting-script parser, which validates with zod (decision 056): the
      // suite's package lists it, though no file of conformance/ imports it by name.
      ignoreDependencies: ['zod'],
    },
  },
};

export default config;
