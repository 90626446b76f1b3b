/**
 * Test data created through the API itself, for targets without the Control
 * API's 'meetings' capability: a meeting is made the way a user makes one, by
 * importing speech (the shipped conformance/audio/tiny.wav, titled through the
 * import's title parameter) and waiting for the job to succeed. A check that
 * can work on such a meeting declares the need 'meeting' instead of
 * 'meetings': it uses the meeting's id and title only, never the seeded
 * transcript or summary text, which an import does not control.
 */
import type { BoundClient, FixtureHost } from './context-types.ts';
import type { SeedMeeting } from './control.ts';
import { speechTruth } from './audio.ts';
import type { HttpResult } from './http.ts';
import { getJob, importBytes, isTerminal, jobIdOf, pollJob, pcmWav, speechWav, UNDECODABLE } from './jobs.ts';

/** How long an import of a few seconds of speech may take before the premise is given up. */
export const IMPORT_MEETING_TIMEOUT_MS = 120_000;
/** How long to wait for the automatic summary of the new meeting (so later summary calls do not race it). */
const AUTO_SUMMARY_WAIT_MS = 30_000;

/**
 * The text of a summary's result as GET …/summary shows it (its shape is
 * implementation-defined: a string, or an object with text): what a check on a
 * meeting made by import compares against, since it did not choose the text.
 */
export function summaryTextOf(result: unknown): string | null {
  if (typeof result === 'string' && result.length > 0) return result;
  const text = (result as { text?: unknown } | null | undefined)?.text;
  return typeof text === 'string' && text.length > 0 ? text : null;
}

/** The shipped speech's lines as segments: what the meeting holds, as far as the import's ground truth knows. */
async function truthSegments(): Promise<SeedMeeting['segments']> {
  const truth = await speechTruth('tiny');
  return truth.lines.map((l) => ({ speaker: l.speaker, start: l.start, end: l.end, text: l.text }));
}

/**
 * A word the meeting's transcript holds, as GET …/transcript shows it (the
 * longest word of the first segment): what a check on a meeting made by import
 * looks for in a rendered export, since it did not choose the transcript.
 */
export async function transcriptWord(ctx: FixtureHost, token: string, meetingId: string): Promise<string | null> {
  const t = await ctx.as(token).get(`/v1/meetings/${meetingId}/transcript`, { label: 'a word of the transcript, to find in the export' });
  const text = (t.body as { segments?: Array<{ text?: unknown }> } | undefined)?.segments?.find(
    (s) => typeof s.text === 'string' && s.text.trim() !== '',
  )?.text;
  if (typeof text !== 'string') return null;
  const words = text.split(/[^\p{L}\p{N}']+/u).filter((w) => w.length >= 3);
  return words.sort((a, b) => b.length - a.length)[0] ?? null;
}

/** A WAV of `seconds` of digital silence, 16 kHz mono 16-bit: built here, no tool needed. */
function silentWav(seconds: number): Uint8Array {
  return pcmWav(new Int16Array(Math.round(seconds * 16_000)));
}

/**
 * A meeting with an empty transcript, made by importing silence; null (with
 * the reason) when the target does not make one of it (a job that fails on
 * silence, or a transcript that is not empty): then there is none to be had
 * through the API.
 */
export async function importSilentMeeting(ctx: FixtureHost, title: string): Promise<{ id: string } | { missing: string }> {
  const api = ctx.as(await ctx.fixtureToken(['read', 'write']));
  const res = await importBytes(
    api,
    silentWav(3),
    { filename: 'conformance-silence.wav', title },
    'fixture: a meeting made by importing silence',
  );
  const jobId = jobIdOf(res);
  if (jobId === null) return { missing: `importing silence answered ${res.describe(120)}` };
  const { job, reached } = await pollJob(api, jobId, isTerminal, IMPORT_MEETING_TIMEOUT_MS, 250);
  if (!reached || job.state !== 'succeeded' || typeof job.meeting_id !== 'string')
    return { missing: `the import of silence ended in state ${String(job.state)}` };
  const t = await api.get(`/v1/meetings/${job.meeting_id}/transcript`, { label: 'fixture: the transcript of silence' });
  const segments = (t.body as { segments?: unknown[] } | undefined)?.segments;
  if (!Array.isArray(segments) || segments.length > 0)
    return { missing: `the transcript of imported silence is not empty (${t.describe(100)})` };
  return { id: job.meeting_id };
}

/**
 * Creates a meeting by importing the shipped speech with `title`; returns its
 * id and a description (title and the speech's ground truth; no summary).
 * SKIPPED, naming why, when the import does not produce a meeting: the check's
 * premise does not hold, which jobs/import-speech grades on its own.
 */
export async function importMeeting(ctx: FixtureHost, title: string): Promise<{ id: string; seed: SeedMeeting }> {
  const api = ctx.as(await ctx.fixtureToken(['read', 'write']));
  let bytes: Uint8Array;
  try {
    bytes = await speechWav();
  } catch (err) {
    return ctx.skip(
      `needs a meeting: no Control API 'meetings' capability, and the shipped speech to import cannot be read (${(err as Error).message})`,
    );
  }
  const res = await importBytes(
    api,
    bytes,
    { filename: 'conformance-meeting.wav', title, language: 'en' },
    'fixture: a meeting made by importing the shipped speech',
  );
  const jobId = jobIdOf(res);
  if (jobId === null)
    return ctx.skip(
      `needs a meeting: no Control API 'meetings' capability, and importing speech to make one answered ${res.describe(160)}`,
    );
  const { job, reached } = await pollJob(api, jobId, isTerminal, IMPORT_MEETING_TIMEOUT_MS, 250);
  const meetingId = job.meeting_id;
  if (!reached || job.state !== 'succeeded' || typeof meetingId !== 'string' || meetingId.length === 0) {
    return ctx.skip(
      `needs a meeting: no Control API 'meetings' capability, and the import made to create one ended ${reached ? `in state ${String(job.state)} (meeting_id ${String(meetingId)})` : `in no terminal state within ${IMPORT_MEETING_TIMEOUT_MS / 1000} s`}`,
    );
  }
  // The summary is generated automatically after an import; let it finish so the check's own summary calls do not race it.
  const until = Date.now() + AUTO_SUMMARY_WAIT_MS;
  for (;;) {
    const s = await api.get(`/v1/meetings/${meetingId}/summary`, { label: 'fixture: wait for the automatic summary' });
    const body = s.body as { result?: unknown; status?: unknown } | undefined;
    if (s.status !== 200 || (body?.result ?? null) !== null || Date.now() > until) break;
    await ctx.sleep(300);
  }
  return { id: meetingId, seed: { title, segments: await truthSegments(), summary: null, audio: true } };
}

/** The 16-bit PCM samples of a mono WAV (the shipped speech), read from its data chunk; null when it is not one. */
function wavSamples(bytes: Uint8Array): Int16Array | null {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < 12 || buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') return null;
  for (let at = 12; at + 8 <= buf.length;) {
    const id = buf.toString('ascii', at, at + 4);
    const size = buf.readUInt32LE(at + 4);
    if (id === 'data') {
      const n = Math.floor(Math.min(size, buf.length - at - 8) / 2);
      const out = new Int16Array(n);
      for (let i = 0; i < n; i++) out[i] = buf.readInt16LE(at + 8 + i * 2);
      return out;
    }
    at += 8 + size + (size % 2);
  }
  return null;
}

/**
 * The shipped speech said `times` over (16 kHz mono): an import of it keeps
 * the target transcribing for a while, which is how a check without the
 * Control API's 'jobs' capability gets a job that is running.
 */
async function longSpeechWav(times: number): Promise<Uint8Array> {
  const samples = wavSamples(await speechWav());
  if (samples === null) throw new Error('the shipped speech is not a PCM WAV');
  const out = new Int16Array(samples.length * times);
  for (let i = 0; i < times; i++) out.set(samples, i * samples.length);
  return pcmWav(out);
}

/** How many times the shipped speech is repeated for a running import (about 40 s of audio). */
const RUNNING_IMPORT_REPEATS = 8;

/**
 * A job that is running right now, made through the API: an import of the
 * shipped speech said over and over, polled until its state is running. The
 * caller cancels it when done. SKIPPED, naming why, when the import is refused
 * or ends before it is seen running: the check's premise does not hold.
 */
export async function runningImport(ctx: FixtureHost, api: BoundClient): Promise<string> {
  let bytes: Uint8Array;
  try {
    bytes = await longSpeechWav(RUNNING_IMPORT_REPEATS);
  } catch (err) {
    return ctx.skip(
      `needs a running job: no Control API 'jobs' capability, and the shipped speech to import cannot be read (${(err as Error).message})`,
    );
  }
  const res = await importBytes(
    api,
    bytes,
    { filename: 'conformance-long.wav', title: 'Conformance running import', language: 'en' },
    'fixture: a running job, made by importing a long recording',
  );
  const jobId = jobIdOf(res);
  if (jobId === null)
    return ctx.skip(`needs a running job: no Control API 'jobs' capability, and importing speech answered ${res.describe(160)}`);
  const { job, reached } = await pollJob(api, jobId, (j) => j.state === 'running' || isTerminal(j), 30_000, 100);
  if (!reached || job.state !== 'running') {
    await api.post(`/v1/jobs/${jobId}/cancel`, { label: 'clean up' });
    return ctx.skip(
      `needs a running job: no Control API 'jobs' capability, and the import made to get one was not seen running (state ${String(job.state)})`,
    );
  }
  return jobId;
}

/**
 * A job that failed, made through the API: an import of bytes no decoder
 * accepts. Null, with what happened, when the target does not fail it (it is
 * not told how to handle undecodable input at import time).
 */
export async function failedImport(api: BoundClient): Promise<{ id: string } | { missing: string }> {
  const res = await importBytes(
    api,
    UNDECODABLE,
    { filename: 'conformance-undecodable.wav' },
    'fixture: a failed job, made by importing bytes that are not audio',
  );
  const jobId = jobIdOf(res);
  if (jobId === null) return { missing: `importing undecodable bytes answered ${res.describe(160)} (no job to fail)` };
  const { job, reached } = await pollJob(api, jobId, isTerminal, IMPORT_MEETING_TIMEOUT_MS, 200);
  if (!reached || job.state !== 'failed') return { missing: `the import of undecodable bytes ended in state ${String(job.state)}` };
  return { id: jobId };
}

/** How long the imports of titled meetings may take in all before the premise is given up. */
const TITLED_MEETINGS_TIMEOUT_MS = 240_000;

/**
 * Meetings with these titles, made through the API for a check that needs
 * many (pagination, search): each an import of one second of silence (cheap
 * to transcribe) titled through the import's title parameter. The uploads go
 * one after another (never more than one in flight, well inside the import
 * budget); the jobs are then awaited together. SKIPPED, naming why, when an
 * import does not produce a meeting. Ids in the order of `titles`.
 */
export async function importTitledMeetings(ctx: FixtureHost, titles: readonly string[]): Promise<string[]> {
  const api = ctx.as(await ctx.fixtureToken(['read', 'write']));
  const bytes = silentWav(1);
  const jobs: string[] = [];
  for (const [i, title] of titles.entries()) {
    const res = await importBytes(
      api,
      bytes,
      { filename: `conformance-titled-${i}.wav`, title },
      `fixture: meeting ${i + 1} of ${titles.length}, made by importing a second of silence`,
    );
    const jobId = jobIdOf(res);
    if (jobId === null)
      return ctx.skip(
        `needs ${titles.length} meetings: no Control API 'meetings' capability, and importing silence to make one answered ${res.describe(160)}`,
      );
    jobs.push(jobId);
  }
  const until = Date.now() + TITLED_MEETINGS_TIMEOUT_MS;
  const ids: string[] = [];
  for (const jobId of jobs) {
    const { job, reached } = await pollJob(api, jobId, isTerminal, Math.max(1000, until - Date.now()), 250);
    if (!reached || job.state !== 'succeeded' || typeof job.meeting_id !== 'string') {
      return ctx.skip(
        `needs ${titles.length} meetings: no Control API 'meetings' capability, and an import of silence made to create one ended ${reached ? `in state ${String(job.state)}` : 'in no terminal state in time'}`,
      );
    }
    ids.push(job.meeting_id);
  }
  return ids;
}

/** How long the import of the long recording (about 40 s of speech) may take: a busy target transcribes it slowly. */
const LONG_IMPORT_TIMEOUT_MS = 240_000;

/**
 * A meeting whose recording is long enough that a diarization of it runs for
 * a moment (the shipped speech said RUNNING_IMPORT_REPEATS times over, about
 * 40 s), made by importing it and waiting for the job. SKIPPED, naming why,
 * when the import does not produce a meeting.
 */
async function importLongMeeting(ctx: FixtureHost, api: BoundClient): Promise<string> {
  const res = await importBytes(
    api,
    await longSpeechWav(RUNNING_IMPORT_REPEATS),
    { filename: 'conformance-long-meeting.wav', title: 'Conformance long meeting', language: 'en' },
    'fixture: a long meeting, made by importing a long recording',
  );
  const jobId = jobIdOf(res);
  if (jobId === null)
    return ctx.skip(
      `needs a pausable job: no Control API 'jobs' capability, and importing the long recording to diarize answered ${res.describe(160)}`,
    );
  const { job, reached } = await pollJob(api, jobId, isTerminal, LONG_IMPORT_TIMEOUT_MS, 250);
  if (!reached || job.state !== 'succeeded' || typeof job.meeting_id !== 'string')
    return ctx.skip(
      `needs a pausable job: the import of the long recording ${reached ? 'ended' : `was still`} in state ${String(job.state)}${reached ? '' : ` after ${LONG_IMPORT_TIMEOUT_MS / 1000} s`}`,
    );
  return job.meeting_id;
}

/**
 * The long meeting of importLongMeeting, made once per run and shared by the
 * checks that diarize it (sse/pause-resume-no-resolve, sse/terminal-after-burst):
 * a diarization leaves the meeting one to diarize again, and each import costs
 * the target a long transcription. A failed import is not kept: the next
 * check tries again (and is SKIPPED with its own reason).
 */
export function sharedLongMeeting(ctx: FixtureHost, api: BoundClient): Promise<string> {
  const env = ctx.env;
  env.sharedLongMeeting ??= importLongMeeting(ctx, api).catch((err: unknown) => {
    env.sharedLongMeeting = undefined;
    throw err;
  });
  return env.sharedLongMeeting;
}

/** How many real diarizations a check submits before giving up on pausing one while it runs. */
const PAUSE_ATTEMPTS = 5;

/**
 * A real diarization paused while it runs, for targets without the Control
 * API's 'jobs' capability (docs/decisions/059): submits POST
 * /v1/jobs/diarization for `meetingId`, polls until it runs and asks to pause
 * it at once. A diarization may end before the pause arrives (the reference's
 * takes a fraction of a second): then it is tried again, up to PAUSE_ATTEMPTS
 * times, and the check is SKIPPED (its premise, a job running when paused,
 * did not hold). Returns the job and the pause's answer, which the caller
 * grades: a refusal while the job still runs is the target's.
 */
export async function pauseRealDiarization(
  ctx: FixtureHost,
  api: BoundClient,
  meetingId: string,
): Promise<{ id: string; pause: HttpResult }> {
  for (let attempt = 0; attempt < PAUSE_ATTEMPTS; attempt++) {
    const sub = await api.post('/v1/jobs/diarization', { json: { meeting_id: meetingId }, label: 'fixture: a real diarization to pause' });
    const id = jobIdOf(sub);
    if (id === null) {
      if (sub.status === 409) {
        await ctx.sleep(200);
        continue;
      }
      return ctx.skip(
        `needs a pausable job: no Control API 'jobs' capability, and POST /v1/jobs/diarization answered ${sub.describe(160)}`,
      );
    }
    const { job } = await pollJob(api, id, (j) => j.state === 'running' || isTerminal(j), 30_000, 10);
    if (job.state !== 'running') continue;
    const pause = await api.post(`/v1/jobs/${id}/pause`);
    if (pause.ok) return { id, pause };
    const after = await getJob(api, id);
    if (isTerminal(after.job)) continue;
    return { id, pause };
  }
  return ctx.skip(
    `needs a pausable job: no Control API 'jobs' capability, and each of ${PAUSE_ATTEMPTS} real diarizations ended before it could be paused`,
  );
}
