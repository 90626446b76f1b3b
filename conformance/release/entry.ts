/**
 * The entry of the release bundle (build.ts bundles it into
 * dist/suite/mas-conformance.mjs and the single executable). The Node check
 * runs before anything else of the suite is evaluated: start.ts and
 * everything it imports are loaded with import() only once the Node is known
 * to be supported, so an old Node prints one line and exits 3 (the run could
 * not start: cli/exit-codes.ts).
 */
import { EXIT } from '../cli/exit-codes.ts';
import { nodeRefusal } from './node-guard.ts';

const refusal = nodeRefusal(process.versions.node);
if (refusal !== null) {
  process.stderr.write(`${refusal}\n`);
  process.exitCode = EXIT.unreachable;
} else {
  import('./start.ts')
    .then((program) => program.start())
    .catch((err: unknown) => {
      process.stderr.write(`mas-conformance: the bundle failed to start: ${(err as Error).stack ?? String(err)}\n`);
      process.exitCode = EXIT.unreachable;
    });
}
