/**
 * Speaker identification across meetings (issue 34), through the real
 * gateway (server/main.ts in a child process, bench/gateway-child.ts) over
 * HTTP on loopback, as a user would use it:
 *
 * 1. Enrolment. Meetings of the simulator's recurring people
 *    (simulator/people/, decision 151) are imported; each cluster is mapped
 *    to its truth person by the best assignment of time overlap
 *    (identification-score.ts) and the enrolled people's clusters are
 *    labelled with their names by PUT /v1/meetings/{id}/speaker-labels,
 *    each person from exactly one labelled meeting.
 * 2. Identification. With the `speaker-identification` section enabled
 *    (GET, then PUT of the whole section with `enabled`, so known_speakers
 *    and the voiceprints behind them stay), other meetings (other scripts,
 *    other casts, clean, office and reverb-only) where enrolled people and
 *    people never enrolled speak are imported, each twice back to back:
 *    identification off and on, alternating which goes first.
 * 3. Figures: the share of enrolled people's clusters named correctly
 *    (targets ≥ 95 % clean, ≥ 85 % office), the share of never-enrolled
 *    people's clusters given someone's name (≤ 2 %), and the time to
 *    transcript (upload → job succeeded) with identification on against
 *    off (≤ 5 % more; meaningful on an idle machine only), with beside it
 *    the gateway child's CPU seconds per import (/proc/<pid>/stat, with and
 *    without its recognizer and decoder processes), on against off, and
 *    the share identification adds to an import's CPU (identificationCpuShare):
 *    a figure a loaded machine barely moves.
 *
 * A gateway without an identification stage names nobody: the bench then
 * reports 0 % named and its targets unmet, it does not fail.
 *
 *   npm run bench -- --only identification [--scenes clean,office] [--scripts three-person-design-review] [--tiny]
 *
 * --scenes and --scripts choose among the identification meetings (a
 * shorter run); enrolment is always the same two meetings.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, loadScript } from '../simulator/scripts/load-script.ts';
import { loadQmsumMeeting } from '../simulator/qmsum/qmsum-source.ts';
import { renderQmsum } from '../simulator/qmsum/render-qmsum.ts';
import { personById } from '../simulator/people/catalogue.ts';
import { parsePeopleCast } from '../simulator/people/cast-people.ts';
import { renderScript } from '../simulator/synth/render-script.ts';
import type { MeetingTruth } from '../simulator/synth/render-script.ts';
import { speakerTurns, truthTokens } from '../simulator/truth-formats/truth-formats.ts';
import { gatewayApi as api, startGatewayChild, startImport, waitForJobEnd, type GatewayChild } from './gateway-child.ts';
import { clusterPeople, judgeClusters, shares, type ClusterVerdict, type IdentificationShares } from './identification-score.ts';
import {
  FlagError,
  fmt,
  formatRows,
  machine,
  processCpuSeconds,
  round,
  target,
  type BenchReport,
  type BenchRunOptions,
  type Target,
} from './lib.ts';

/**
 * One meeting: a script (or "qmsum:<excerpt>", a vendored QMSum excerpt in
 * fixtures/qmsum/val/, its first `turns` turns), the people cast into its
 * speakers (decision 151), its scene and scene seed.
 */
interface MeetingSpec {
  script: string;
  turns?: number;
  people: string;
  scene: string;
  seed: number;
}

/** Enrolled from the enrolment meetings; lukas and amara are never enrolled (the strangers). */
const ENROLLED = ['dana', 'emeka', 'fiona', 'hiro', 'raj', 'sofia'];

const ENROL: readonly MeetingSpec[] = [
  { script: 'four-person-standup', people: 'dana,emeka,fiona,hiro', scene: 'clean', seed: 1 },
  { script: 'two-person-call', people: 'raj,sofia', scene: 'clean', seed: 1 },
];

/** Other scripts, other casts and seeds, three scenes; every meeting has a stranger or two beside enrolled people. */
const IDENTIFY: readonly MeetingSpec[] = [
  { script: 'three-person-design-review', people: 'sofia,hiro,lukas', scene: 'clean', seed: 2 },
  { script: 'six-person-incident-review', people: 'emeka,raj,amara,dana,fiona,lukas', scene: 'clean', seed: 3 },
  { script: 'long-silences', people: 'dana,amara', scene: 'clean', seed: 4 },
  { script: 'four-person-standup', people: 'raj,lukas,hiro,sofia', scene: 'office', seed: 5 },
  { script: 'three-person-design-review', people: 'fiona,amara,emeka', scene: 'office', seed: 6 },
  { script: 'two-person-call', people: 'hiro,dana', scene: 'reverb-only', seed: 7 },
  // A real meeting's talk (AMI through QMSum), three people of whom one was never enrolled.
  { script: 'qmsum:ES2006a-excerpt', turns: 24, people: 'lukas,hiro,emeka', scene: 'reverb-only', seed: 8 },
];

/** --tiny: the machinery only, on the two-line script. */
const TINY_ENROL: readonly MeetingSpec[] = [{ script: 'tiny', people: 'dana,emeka', scene: 'clean', seed: 1 }];
const TINY_IDENTIFY: readonly MeetingSpec[] = [{ script: 'tiny', people: 'emeka,lukas', scene: 'clean', seed: 2 }];

const SECTION = '/v1/config/speaker-identification';
const JOB_TIMEOUT_S = 1800;
/** How long enrolment may take after PUT speaker-labels before the bench goes on without it (--tiny: 10 s). */
const ENROLMENT_WAIT_S = 120;
const TINY_ENROLMENT_WAIT_S = 10;

interface TranscriptDto {
  segments: { speaker: string; speaker_name: string | null; start: number; end: number }[];
  speakers: { key: string; name: string | null }[];
}

interface Imported {
  meetingId: string;
  seconds: number;
  /** CPU seconds of the gateway process (its threads: event loop, pipeline workers) during the import. */
  cpuGateway: number | null;
  /** The same with the child processes it waited for (recognizer, decoder): the import's whole CPU. */
  cpuAll: number | null;
  transcript: TranscriptDto;
}

interface MeetingResult extends MeetingSpec {
  audio_seconds: number;
  seconds_off: number;
  seconds_on: number;
  cpu_gateway_off: number | null;
  cpu_gateway_on: number | null;
  cpu_all_off: number | null;
  cpu_all_on: number | null;
  clusters: ClusterVerdict[];
  shares: IdentificationShares;
}

interface Rendered {
  wav: string;
  truth: MeetingTruth;
}

async function render(spec: MeetingSpec, work: string): Promise<Rendered> {
  const wav = join(work, `${spec.script.replace(/:/g, '-')}.${spec.people.replace(/,/g, '-')}.${spec.scene}.wav`);
  const options = { people: parsePeopleCast(spec.people), scene: spec.scene, seed: spec.seed };
  if (spec.script.startsWith('qmsum:')) {
    const loaded = await loadQmsumMeeting(join(REPO_ROOT, 'fixtures', 'qmsum', 'val', `${spec.script.slice('qmsum:'.length)}.json`));
    // QMSum's speakers are roles ("Project Manager"): no first names to replace in the talk.
    const out = await renderQmsum(loaded, wav, {
      ...options,
      renameMentions: false,
      ...(spec.turns !== undefined ? { turns: spec.turns } : {}),
    });
    return { wav, truth: out.truth };
  }
  const out = await renderScript(await loadScript(spec.script), wav, options);
  return { wav, truth: out.truth };
}

async function importWav(gw: GatewayChild, wav: string, name: string): Promise<Imported> {
  const bytes = readFileSync(wav);
  const cpuBefore = cpuOf(gw);
  const started = performance.now();
  const jobId = await startImport(gw, bytes, name, 120_000);
  const job = await waitForJobEnd(gw, jobId, { startedMs: started, timeoutS: JOB_TIMEOUT_S, intervalMs: 200 });
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = cpuOf(gw);
  if (job.state !== 'succeeded' || job.meeting_id === null)
    throw new Error(`the import of ${name} ended ${job.state}: ${job.error ?? 'no error'}`);
  const transcript = await api<TranscriptDto>(gw, 'GET', `/v1/meetings/${job.meeting_id}/transcript`);
  const spent = (k: 'gateway' | 'all'): number | null =>
    cpuBefore[k] === null || cpuAfter[k] === null ? null : round(cpuAfter[k] - cpuBefore[k], 2);
  return { meetingId: job.meeting_id, seconds, cpuGateway: spent('gateway'), cpuAll: spent('all'), transcript };
}

/**
 * The gateway child's CPU seconds so far (/proc/<pid>/stat): its own, and
 * with the children it waited for. Unlike wall time, a loaded machine
 * barely moves them: the figure the time target is checked on there.
 */
function cpuOf(gw: GatewayChild): { gateway: number | null; all: number | null } {
  return { gateway: processCpuSeconds(gw.pid), all: processCpuSeconds(gw.pid, { withChildren: true }) };
}

/**
 * Identification on or off as a user switches it. known_speakers is left
 * out: a PUT that gives it deletes the voiceprints of the people it leaves
 * out (decision 147), and an enrolment finishing between a GET and a PUT
 * would lose its person.
 */
async function setIdentification(gw: GatewayChild, enabled: boolean): Promise<void> {
  const current = await api<{ config: { match_threshold?: number } }>(gw, 'GET', SECTION);
  await api(gw, 'PUT', SECTION, {
    enabled,
    ...(current.config.match_threshold !== undefined ? { match_threshold: current.config.match_threshold } : {}),
  });
}

/** Enrolment runs after the label update has answered: waits until known_speakers lists every name, or gives up after a while. */
async function waitForEnrolment(gw: GatewayChild, names: readonly string[], waitS: number): Promise<string[]> {
  const deadline = performance.now() + waitS * 1000;
  for (;;) {
    const current = await api<{ config: { known_speakers?: { name: string }[] } }>(gw, 'GET', SECTION);
    const known = new Set((current.config.known_speakers ?? []).map((k) => k.name));
    const missing = names.filter((n) => !known.has(n));
    if (missing.length === 0 || performance.now() > deadline) return missing;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Cluster → truth person for an imported meeting. */
function peopleOf(truth: MeetingTruth, transcript: TranscriptDto): Map<string, string | null> {
  return clusterPeople(speakerTurns(truthTokens(truth)), transcript.segments);
}

/** Enrols the enrolled people of one meeting by labelling their clusters; returns who was labelled. */
async function enrol(
  gw: GatewayChild,
  spec: MeetingSpec,
  work: string,
  waitS: number,
  log: (line: string) => void,
): Promise<Map<string, string>> {
  const { wav, truth } = await render(spec, work);
  const imported = await importWav(gw, wav, `enrol ${spec.script}`);
  const labels: Record<string, string> = {};
  const enrolled = new Map<string, string>();
  for (const [cluster, person] of peopleOf(truth, imported.transcript)) {
    if (person === null || !ENROLLED.includes(person)) continue;
    const name = personById(person)!.name;
    labels[cluster] = name;
    enrolled.set(person, name);
  }
  await api(gw, 'PUT', `/v1/meetings/${imported.meetingId}/speaker-labels`, { labels });
  // A gateway without enrolment never lists them: then nobody is enrolled, and the wait says so.
  const missing = await waitForEnrolment(gw, [...enrolled.values()], waitS);
  log(
    `identification: labelled ${[...enrolled.keys()].join(', ')} in ${spec.script} (${Object.keys(labels).join(', ')})` +
      (missing.length === 0 ? '; all enrolled' : `; not listed in known_speakers after ${waitS} s: ${missing.join(', ')}`),
  );
  return enrolled;
}

/** One meeting imported with identification off and on, back to back (alternating order); the "on" transcript is scored. */
async function identify(
  gw: GatewayChild,
  spec: MeetingSpec,
  index: number,
  enrolled: ReadonlyMap<string, string>,
  work: string,
  log: (line: string) => void,
): Promise<MeetingResult> {
  const { wav, truth } = await render(spec, work);
  const runs: Partial<Record<'on' | 'off', Imported>> = {};
  for (const mode of index % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
    await setIdentification(gw, mode === 'on');
    runs[mode] = await importWav(gw, wav, `${spec.script} ${mode}`);
  }
  const on = runs.on!;
  const names = new Map(on.transcript.speakers.map((s) => [s.key, s.name]));
  const clusters = judgeClusters(peopleOf(truth, on.transcript), names, enrolled);
  for (const r of Object.values(runs)) await api(gw, 'DELETE', `/v1/meetings/${r.meetingId}?delete_files=true`);
  const result: MeetingResult = {
    ...spec,
    audio_seconds: truth.duration,
    seconds_off: round(runs.off!.seconds, 2),
    seconds_on: round(on.seconds, 2),
    cpu_gateway_off: runs.off!.cpuGateway,
    cpu_gateway_on: on.cpuGateway,
    cpu_all_off: runs.off!.cpuAll,
    cpu_all_on: on.cpuAll,
    clusters,
    shares: shares(clusters),
  };
  log(
    `identification ${spec.script} (${spec.people}) @${spec.scene}: ${clusters.map((c) => `${c.cluster}=${c.person ?? '–'}→${c.name ?? '–'}`).join(' ')}; ` +
      `${result.seconds_off} s off, ${result.seconds_on} s on; CPU gateway ${result.cpu_gateway_off} s off, ${result.cpu_gateway_on} s on, ` +
      `with its children ${result.cpu_all_off} s off, ${result.cpu_all_on} s on`,
  );
  return result;
}

/**
 * What identification adds to an import's CPU, as a share of the import's
 * whole CPU with it off: the gateway process's own CPU on minus off, over
 * the gateway's and its children's CPU off. The stage runs in the gateway
 * process (identify-speakers.ts, on the event loop), so its cost is all in
 * the first difference; the recognizer's processes, which it does not
 * touch, move by several per cent between two identical imports on a loaded
 * machine and are left out of the difference.
 */
function identificationCpuShare(results: readonly MeetingResult[]): number | null {
  let added = 0;
  let whole = 0;
  for (const r of results) {
    if (r.cpu_gateway_on === null || r.cpu_gateway_off === null || r.cpu_all_off === null) return null;
    added += r.cpu_gateway_on - r.cpu_gateway_off;
    whole += r.cpu_all_off;
  }
  return whole > 0 ? round(added / whole, 4) : null;
}

/** Pooled shares of the meetings of one scene (every cluster counted once). */
function pooled(results: readonly MeetingResult[]): IdentificationShares {
  return shares(results.flatMap((r) => r.clusters));
}

function meetingsFor(opts: BenchRunOptions): { enrol: readonly MeetingSpec[]; identify: readonly MeetingSpec[] } {
  if (opts.tiny) return { enrol: TINY_ENROL, identify: TINY_IDENTIFY };
  const list = (name: string): string[] | undefined => opts.options?.[name]?.split(',').map((s) => s.trim());
  const scenes = list('scenes');
  const scripts = list('scripts');
  const identifyIn = IDENTIFY.filter(
    (m) => (scenes === undefined || scenes.includes(m.scene)) && (scripts === undefined || scripts.includes(m.script)),
  );
  if (identifyIn.length === 0)
    throw new FlagError(
      `no identification meeting with --scenes ${scenes?.join(',') ?? 'any'} and --scripts ${scripts?.join(',') ?? 'any'}; ` +
        `meetings: ${IDENTIFY.map((m) => `${m.script}@${m.scene}`).join(', ')}`,
    );
  return { enrol: ENROL, identify: identifyIn };
}

export async function run(opts: BenchRunOptions): Promise<BenchReport> {
  const meetings = meetingsFor(opts);
  const waitS = opts.tiny ? TINY_ENROLMENT_WAIT_S : ENROLMENT_WAIT_S;
  const work = mkdtempSync(join(tmpdir(), 'mas-bench-identification-'));
  const gw = await startGatewayChild();
  const started = performance.now();
  const results: MeetingResult[] = [];
  const enrolled = new Map<string, string>();
  try {
    await setIdentification(gw, true);
    for (const spec of meetings.enrol) for (const [p, n] of await enrol(gw, spec, work, waitS, opts.log)) enrolled.set(p, n);
    for (const [i, spec] of meetings.identify.entries()) results.push(await identify(gw, spec, i, enrolled, work, opts.log));
  } finally {
    await gw.stop();
    rmSync(work, { recursive: true, force: true });
  }
  const byScene: Record<string, IdentificationShares> = {};
  for (const scene of new Set(results.map((r) => r.scene))) byScene[scene] = pooled(results.filter((r) => r.scene === scene));
  const all = pooled(results);
  const sum = (k: 'seconds_on' | 'seconds_off'): number => results.reduce((s, r) => s + r[k], 0);
  const timeRatio = sum('seconds_off') > 0 ? round(sum('seconds_on') / sum('seconds_off'), 3) : null;
  const cpuRatio = (on: 'cpu_all_on' | 'cpu_gateway_on', off: 'cpu_all_off' | 'cpu_gateway_off'): number | null => {
    if (results.some((r) => r[on] === null || r[off] === null)) return null;
    const total = (k: typeof on | typeof off) => results.reduce((s, r) => s + r[k]!, 0);
    return total(off) > 0 ? round(total(on) / total(off), 3) : null;
  };
  const cpuAllRatio = cpuRatio('cpu_all_on', 'cpu_all_off');
  const cpuShare = identificationCpuShare(results);
  const targets: Record<string, Target> = {
    never_enrolled_named: target(all.never_enrolled_named, { max: 0.02 }),
    time_on_vs_off: target(timeRatio, { max: 1.05 }),
    identification_cpu_share: target(cpuShare, { max: 0.05 }),
  };
  if (byScene['clean'] !== undefined) targets['named_correctly_clean'] = target(byScene['clean'].named_correctly, { min: 0.95 });
  if (byScene['office'] !== undefined) targets['named_correctly_office'] = target(byScene['office'].named_correctly, { min: 0.85 });
  return {
    generated_at: new Date().toISOString(),
    machine: machine(),
    config: {
      tiny: opts.tiny,
      enrolled: [...enrolled.keys()],
      enrolment_meetings: meetings.enrol,
      identification_meetings: meetings.identify,
      gateway: 'server/main.ts in a child process (bench/gateway-child.ts), imports over HTTP on loopback',
      wall_seconds: round((performance.now() - started) / 1000, 1),
    },
    benchmarks: { meetings: results, by_scene: byScene, all, identified_any: all.named_any > 0 },
    ratios: {
      time_on_vs_off: timeRatio,
      cpu_on_vs_off: cpuAllRatio,
      cpu_gateway_on_vs_off: cpuRatio('cpu_gateway_on', 'cpu_gateway_off'),
      identification_cpu_share: cpuShare,
    },
    baselines: {
      time_on_vs_off: 'time to transcript with the speaker-identification section off, the same meetings back to back',
      cpu_on_vs_off: "the gateway child's CPU seconds with its waited-for children (recognizer, decoder) per import, section off",
      cpu_gateway_on_vs_off: "the gateway process's own CPU seconds (event loop and pipeline workers) per import, section off",
      identification_cpu_share: "the import's whole CPU seconds (gateway and its children), section off",
    },
    targets,
  };
}

function meetingsOf(report: BenchReport): MeetingResult[] {
  return (report.benchmarks['meetings'] as MeetingResult[] | undefined) ?? [];
}

const pct = (v: number | null): string => (v === null ? '–' : `${fmt(v * 100, 1)} %`);

export function table(report: BenchReport): string {
  const rows = [['meeting', 'people', 'scene', 'named right', 'strangers named', 'off s', 'on s', 'CPU off s', 'CPU on s']];
  for (const m of meetingsOf(report))
    rows.push([
      m.script,
      m.people,
      m.scene,
      `${pct(m.shares.named_correctly)} of ${m.shares.enrolled_clusters}`,
      `${pct(m.shares.never_enrolled_named)} of ${m.shares.never_enrolled_clusters}`,
      fmt(m.seconds_off, 1),
      fmt(m.seconds_on, 1),
      fmt(m.cpu_all_off, 1),
      fmt(m.cpu_all_on, 1),
    ]);
  const lines = Object.entries(report.targets).map(([k, t]) => `${k}: ${fmt(t.value, 3)} (${t.target}) ${t.met ? 'met' : 'NOT MET'}`);
  const none = report.benchmarks['identified_any'] === false ? '\nnothing was identified: no cluster of any meeting was given a name' : '';
  return `${formatRows(rows)}\n${lines.join('\n')}${none}`;
}

export function markdown(report: BenchReport): string {
  const out = [
    'Each person enrolled from one labelled meeting (PUT speaker-labels), then every meeting below imported twice back to back, ' +
      'identification off and on; the "on" transcript is scored. A cluster is a truth person by the best assignment of overlap. ' +
      'Targets: ≥ 95 % of enrolled people’s clusters named correctly in clean meetings, ≥ 85 % in office, ≤ 2 % of never-enrolled ' +
      'people’s clusters given a name, time to transcript on ≤ 1.05 × off.',
    '',
    '| script | people | scene | named correctly | never enrolled, named | off (s) | on (s) | CPU off (s) | CPU on (s) |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|',
    ...meetingsOf(report).map(
      (m) =>
        `| ${m.script} | ${m.people} | ${m.scene} | ${pct(m.shares.named_correctly)} of ${m.shares.enrolled_clusters} | ` +
        `${pct(m.shares.never_enrolled_named)} of ${m.shares.never_enrolled_clusters} | ${fmt(m.seconds_off, 1)} | ${fmt(m.seconds_on, 1)} | ` +
        `${fmt(m.cpu_all_off, 1)} | ${fmt(m.cpu_all_on, 1)} |`,
    ),
    '',
    ...Object.entries(report.targets).map(([k, t]) => `- ${k}: ${fmt(t.value, 3)} (${t.target}) ${t.met ? '✓' : '**✗**'}`),
  ];
  if (report.benchmarks['identified_any'] === false) out.push('', 'Nothing was identified: no cluster of any meeting was given a name.');
  return out.join('\n');
}
