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
        // Served to the browser as a file (server/control/settings-page/index.ts: asset('app.js')).
        'server/control/settings-page/assets/app.js',
        // Run by hand, as their headers and the decisions say: measurements and renderers of committed data.
        'bench/conformance-speed.ts',
        'bench/qmsum-render.ts',
        'bench/resample.ts',
        'bench/quality-real-speech.ts',
        'bench/quality-diarizer.ts',
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
  /*
   * Findings in files that are being restructured at the time these checks came in, one entry per file with
   * the names it reports; each goes when its file is reworked (and knip keeps any new finding out).
   */
  ignoreIssues: {
    // The conformance harness and runner, cli/program.ts, bench/pipeline.ts: being split (their import cycles too).
    'conformance/runner/registry.ts': ['exports'], // CHECKS_DIR, idFromFile
    'conformance/runner/result.ts': ['exports', 'types'], // worst, clauseContribution, type ClauseStatus
    'conformance/runner/run.ts': ['exports'], // DEFAULT_CHECK_TIMEOUT_MS, isLoopbackUrl, missingNeed, CAPABILITY_BRINGS, skippedResult
    'conformance/runner/select.ts': ['exports'], // namesSection, catalogSections
    'conformance/harness/ledger.ts': ['exports', 'types'], // LEDGER_KINDS, type CleanupKind
    'cli/program.ts': ['exports'], // EXIT
    'conformance/harness/context.ts': ['exports'], // SCOPES, MAX_EXCHANGES, propertySeed
    'conformance/harness/expect.ts': ['exports', 'types'], // AUTH_REFUSAL_CODES, hasType, type FieldType
    'conformance/harness/http.ts': ['exports'], // DEFAULT_TIMEOUT_MS
    'conformance/harness/curl.ts': ['exports'], // INLINE_BODY_MAX
    'conformance/harness/openapi-responses.ts': ['exports'], // bareMediaType
    'conformance/harness/jobs.ts': ['exports'], // JOB_KINDS
    'conformance/harness/exchange.ts': ['exports', 'types'], // BODY_LIMIT, type SseRecord
    'conformance/harness/token-pool.ts': ['exports'], // TOKEN_SCOPES, TOKEN_ORIGINS, TOKEN_KINDS
    'conformance/harness/control.ts': ['exports'], // RESET_SETTINGS
    'conformance/harness/webhooks.ts': ['exports'], // DEFAULT_PUBLIC_WEBHOOK_URL, approvedWebhook, REASONS
    'conformance/harness/arbitraries.ts': ['exports'], // REQUESTABLE_SCOPES, BMP_SIMPLE
    'conformance/harness/config.ts': ['exports'], // ARMING, togglableField, armingField
    'conformance/spec/constants.ts': ['exports'], // EXPORT_FORMATS, ERROR_CODES, JOB_STATES, JOB_TERMINAL_STATES, JOB_KINDS, RECORDING_STATES, IMPORT_EXTENSIONS, APPROVAL_STATES, DELIVERY_MODES, DELIVERY_REASONS, EVENTS, LIMITS
    'conformance/harness/api-fixtures.ts': ['exports'], // AUTO_SUMMARY_WAIT_MS, silentWav, longSpeechWav, RUNNING_IMPORT_REPEATS, TITLED_MEETINGS_TIMEOUT_MS, LONG_IMPORT_TIMEOUT_MS, importLongMeeting, PAUSE_ATTEMPTS
    'conformance/harness/audio.ts': ['exports'], // AUDIO_DIR
    'conformance/harness/exchange-audit.ts': ['exports'], // AUDIT_BODY_LIMIT, AUDIT_MAX_ENTRIES
    'conformance/harness/fixtures.ts': ['exports'], // segmentsFromScript
    'bench/pipeline.ts': ['duplicates'], // benchPipeline|run
  },
};

export default config;
