/**
 * The help texts: --help the common options on one screen, --help-all every
 * option. Both name the command the suite was started with.
 */
import { invocation } from '../gate.ts';
import { EXIT_STATUS_TEXT } from './exit-codes.ts';

/**
 * --help: the common options on one screen (at most 24 lines); the rest is
 * --help-all (usage). Both name the command the suite was started with.
 */
export function shortUsage(prefix: string = invocation()): string {
  return `Usage: ${prefix} --base-url URL [options]
Runs the Meeting Automation Service conformance suite against a target.

  --base-url URL          the API under test (MAS_BASE_URL)
  --control-url URL       its Control API, with --control-secret S (MAS_CONTROL_URL, _SECRET)
  --token T               an API token, when no Control API mints tokens (MAS_TOKEN)
  --tokens FILE           tokens of other scope sets, for a target without a Control API
  --only SEL, --skip SEL  check ids or prefixes (meetings/), clause ids or prefixes
                          (auth.), or spec section headings ("Endpoints > Jobs")
  --list                  print what is selected and exit
  --shard K/N, --jobs N   a deterministic part; up to N independent checks at once
  --seed N                the run seed (random by default, always printed)
  --json DIR              index.json, one detail file per check, request bodies
  --junit F, --html F, --md F
                          JUnit XML, a self-contained HTML page, Markdown
  --reporter github       GitHub workflow annotations after the run
  --expected-failures F   failures to tolerate (check or clause ids); --rerun-failed DIR
  --help-all              every option; --version

${EXIT_STATUS_TEXT}
Merge shard reports: ${prefix} merge DIR... --json OUT
`;
}

/** The one-line hint after a usage error. */
export function usageHint(prefix: string = invocation()): string {
  return `run with --help for usage: ${prefix} --help`;
}

/** --help-all: every option. */
export function usage(prefix: string = invocation()): string {
  return `Usage:
  ${prefix} --base-url URL [options]
  ${prefix} merge DIR... --json OUT [--junit FILE] [--html FILE] [--md FILE]

Runs the Meeting Automation Service conformance suite against a target and
reports per clause of conformance/clauses.json.

Target:
  --base-url URL          the API under test, e.g. http://127.0.0.1:8420 (MAS_BASE_URL)
  --control-url URL       its Control API (CONTROL.md): settings, tokens, fixtures, reset (MAS_CONTROL_URL)
  --control-secret S      the Control API secret (MAS_CONTROL_SECRET)
  --control-capabilities LIST
                          use only these of its capabilities (comma-separated), e.g. to
                          see what a target offering fewer would have checked
  --token T               an API token, used when no Control API mints tokens (MAS_TOKEN)
  --tokens FILE           tokens of other scope sets, origins and kinds, for a target
                          without a Control API (MAS_TOKENS_FILE; format: conformance/README.md)
  --receiver-host H       address of this machine the target can reach for webhook
                          deliveries (default: loopback, for a target on this machine)
  --lan-host H            an address of the target's machine the LAN checks may reach; without
                          it the suite sends traffic to loopback addresses only

Selection:
  --only SEL[,SEL...]     check ids or prefixes (meetings/, auth/scope-matrix), clause-id
                          prefixes (auth., search.q) or section headings of API.md
                          ("Endpoints > Jobs", "Job states"; any case); repeatable
  --skip SEL[,SEL...]     the same, left out (wins over --only)
  --shard K/N             run the K-th of N deterministic parts (by check id)
  --slow                  include slow checks (webhook retry schedules, wait caps: minutes)
  --fresh                 the target was just started as a fresh installation (empty data
                          folder, default settings): enables the fresh-install checks
  --list                  print the selected checks and exit (no target needed)

Properties (fast-check):
  --seed N                run seed (default: random; printed, and in every report)
  --runs N                runs per property (default 50)
  --replay FILE           re-run the one check of a JSON detail file (reports/x/checks/...json)
                          with its seed and counterexample path
  --rerun-failed DIR      run exactly the checks that FAILed or ERRORed in an earlier --json
                          report (its folder or its index.json), with that run's seed

Reports:
  --json DIR              index.json + one detail file per check (full exchanges)
  --junit FILE            JUnit XML
  --html FILE             a self-contained HTML report
  --md FILE               Markdown (e.g. --md "$GITHUB_STEP_SUMMARY")

Gate:
  --fail-on LIST          also fail the run (exit 1) on these outcomes: skipped, flaky,
                          non_strict, informational (comma-separated; repeatable)
  --min-coverage P        fail the run (exit 1) when fewer than P % of the checkable clauses
                          were exercised
  --wait-for-target S     poll GET /health for up to S seconds before starting
  --expected-failures F   a file of failures to tolerate: one check id or clause id a line, then
                          an optional reason ('#' starts a comment). A listed FAIL or ERROR does
                          not fail the run; an unlisted one does; a listed one that now passes
                          fails the run as stale, naming the lines to delete
  --write-expected-failures F
                          write this run's FAILed and ERRORed checks to F in that format (a
                          starting point; the run's exit status is unchanged)
  --max-failures N        stop after N unexpected FAILs or ERRORs, reporting what ran
  --reporter NAME         also print github (workflow annotations) after the run; repeatable
  --config FILE           options as JSON (default: ./mas-conformance.config.json when present);
                          keys are option names ("base-url" or "baseUrl"); flags win

TLS (an https:// target):
  --ca FILE               trust this PEM certificate too (e.g. the LAN listener's self-signed one)
  --insecure              do not verify the target's certificate

Other:
  --timeout MS            per-request timeout (default 15000)
  --jobs N                run up to N checks at once among those that touch only their own
                          target state (Check.touches), at most one of them recording; the
                          rest run alone (default 1)
  --recorder-alone        with --jobs: run the checks that record alone too (for a target whose
                          recording slows or changes other work; the earlier --jobs schedule)
  --no-retry              do not run a FAILed or ERRORed check a second time
  --no-reset              never reset the target between checks
  --keep                  leave what the run created on the target (meetings, webhooks, ...);
                          by default it is removed at the end and on Ctrl+C, as the tokens allow
  --public-webhook-url U  where webhooks that must point at a public address point
                          (MAS_PUBLIC_WEBHOOK_URL; default https://[2d00::1]/mas-conformance-webhook,
                          an address no one holds: docs/decisions/075)
  -h, --help              the common options
  --help-all              this text
  --version               print the suite's name and version

${EXIT_STATUS_TEXT}
PASS, NON_STRICT, INFORMATIONAL, SKIPPED and FLAKY do not fail a run unless --fail-on
names them; --only/--skip selecting no check is bad usage.
`;
}
