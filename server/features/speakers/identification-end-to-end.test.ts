/**
 * Speaker identification end to end, on real decoding, voice activity and
 * diarization (the recognizer "hears" the render's true words): two people
 * enrolled from one labelled meeting are named in another meeting of other
 * words where a third, never enrolled, person keeps S<n>; a user's label is
 * never overwritten by a later diarization; the voiceprints show in no API
 * response, export, event (what webhooks deliver), log line or error; the
 * Control API's reset wipes them;
 * the exports name the people. Decisions 146–149.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { ALL_SCOPES, testGateway } from '../../testing/gateway.ts';
import { truthRecognizer, voicedMeeting, type VoicedMeeting } from '../../testing/voices-meeting.ts';
import { createControlApp } from '../../control/app.ts';
import type { Recognizer } from '../../pipeline/types.ts';

const ALICE = 'festival:cmu_us_slt_arctic_hts';
const BEN = 'flite:kal16';
const STRANGER = 'flite:awb';
const SECRET = 'control-secret-for-tests-0123456789';

/** Each cluster key of a transcript, as the truth speaker most of its words belong to. */
function truthSpeakerOf(segments: { speaker: string; start: number; end: number }[], meeting: VoicedMeeting): Map<string, string> {
  const votes = new Map<string, Map<string, number>>();
  for (const s of segments) {
    for (const w of meeting.truth.words.filter((w) => w.start >= s.start - 0.01 && w.end <= s.end + 0.01)) {
      const v = votes.get(s.speaker) ?? new Map<string, number>();
      v.set(w.speaker, (v.get(w.speaker) ?? 0) + 1);
      votes.set(s.speaker, v);
    }
  }
  return new Map([...votes].map(([key, v]) => [key, [...v].sort((a, b) => b[1] - a[1])[0]![0]]));
}

test('people enrolled from one labelled meeting are named in another; voiceprints stay private and reset wipes them', async () => {
  const first = await voicedMeeting('two-person-call', { S1: ALICE, S2: BEN });
  const second = await voicedMeeting('three-person-design-review', { S1: BEN, S2: ALICE, S3: STRANGER });
  let hearing: Recognizer = truthRecognizer(first.truth);
  const gw = testGateway({ pipeline: { recognizerFor: () => hearing } });
  const api = () => request(gw.app);
  const auth = gw.bearer(ALL_SCOPES);
  const control = createControlApp({ secret: SECRET, deps: () => gw.deps, restart: () => undefined, logError: (e) => gw.errors.push(e) });
  const bodies: string[] = [];
  // Every event the gateway publishes (what webhooks deliver) is kept to be searched too.
  gw.deps.bus.subscribe((event) => bodies.push(JSON.stringify(event)));
  const get = async (path: string) => {
    const res = await api().get(path).set('Authorization', auth);
    bodies.push(res.text);
    return res;
  };
  const importMeeting = async (meeting: VoicedMeeting, id: string) => {
    hearing = truthRecognizer(meeting.truth);
    copyFileSync(meeting.wav, join(gw.deps.media.folders.uploads, `${id}.wav`));
    const job = gw.deps.jobs.createImport(id, `${id}.wav`, { ext: 'wav', title: id });
    await gw.deps.jobs.idle();
    const done = gw.deps.jobs.get(job.id);
    assert.equal(done.state, 'succeeded', done.error ?? '');
    return done.meeting_id!;
  };
  try {
    const enable = await api().put('/v1/config/speaker-identification').set('Authorization', auth).send({ enabled: true });
    assert.equal(enable.status, 200);

    // Enrolment: the first meeting's clusters named after the people they are.
    const a = await importMeeting(first, 'job_first');
    const aTranscript = (await get(`/v1/meetings/${a}/transcript`)).body;
    const aWho = truthSpeakerOf(aTranscript.segments, first);
    const names: Record<string, string> = {};
    for (const [key, truthKey] of aWho) names[key] = truthKey === 'S1' ? 'Alice' : 'Ben';
    assert.deepEqual(new Set(Object.values(names)), new Set(['Alice', 'Ben']), JSON.stringify(names));
    const labelled = await api().put(`/v1/meetings/${a}/speaker-labels`).set('Authorization', auth).send({ labels: names });
    assert.equal(labelled.status, 200);
    await gw.deps.speakers.idle();
    assert.deepEqual(
      gw.deps.speakers.outcomes(a).map((o) => [o.name, o.enrolled]),
      Object.values(names).map((n) => [n, true]),
    );
    const config = (await get('/v1/config/speaker-identification')).body;
    assert.deepEqual(config.withheld, ['voiceprints']);
    assert.deepEqual(new Set(config.config.known_speakers.map((k: { name: string }) => k.name)), new Set(['Alice', 'Ben']));
    assert.equal('voiceprints' in config.config, false);

    // Identification: the same two voices in other words, and a third voice nobody enrolled.
    const b = await importMeeting(second, 'job_second');
    const bTranscript = (await get(`/v1/meetings/${b}/transcript`)).body;
    const bWho = truthSpeakerOf(bTranscript.segments, second);
    const expected: Record<string, string | null> = { S1: 'Ben', S2: 'Alice', S3: null };
    for (const entry of bTranscript.speakers as { key: string; name: string | null; label_source: string | null }[]) {
      assert.equal(entry.name, expected[bWho.get(entry.key)!], JSON.stringify(bTranscript.speakers));
      assert.equal(entry.label_source, entry.name === null ? null : 'identified');
    }
    for (const s of bTranscript.segments) assert.equal(s.speaker_name, expected[bWho.get(s.speaker)!]);

    // A user's label stays through a later diarization, and its name is given to nobody else.
    const benKey = [...bWho].find(([, t]) => t === 'S1')![0];
    await api()
      .put(`/v1/meetings/${b}/speaker-labels`)
      .set('Authorization', auth)
      .send({ labels: { [benKey]: 'Benjamin' } });
    gw.deps.jobs.createDiarization(b, undefined);
    await gw.deps.jobs.idle();
    await gw.deps.speakers.idle();
    const after = (await get(`/v1/meetings/${b}/transcript`)).body;
    const benEntry = after.speakers.find((s: { key: string }) => s.key === benKey);
    assert.deepEqual([benEntry?.name, benEntry?.label_source], ['Benjamin', 'user']);
    const given = after.speakers.map((s: { name: string | null }) => s.name).filter((n: string | null) => n !== null);
    assert.equal(new Set(given).size, given.length, 'one name, one speaker');

    // Never in a response, an export or a log line: no number of a stored voiceprint appears.
    for (const format of ['json', 'md', 'txt']) {
      const exported = await get(`/v1/meetings/${b}/export?format=${format}`);
      // Names everywhere a person reads: the exports name the identified people.
      assert.ok(exported.text.includes('Alice'), format);
    }
    await get(`/v1/meetings/${b}/summary`);
    const stored = gw.db.prepare('SELECT stats FROM voiceprint_enrolments').all() as { stats: string }[];
    const numbers = stored.flatMap((r) => (JSON.parse(r.stats) as { sum: number[] }).sum.map(String)).filter((n) => n.length > 8);
    assert.ok(numbers.length > 0);
    const seen = [...bodies, ...gw.errors.map((e) => (e instanceof Error ? `${e.message}\n${e.stack ?? ''}` : String(e)))].join('\n');
    for (const n of numbers) assert.equal(seen.includes(n), false, `a voiceprint number appeared: ${n}`);

    // The Control API's reset wipes them.
    const reset = await request(control).post('/control/reset').set('Authorization', `Bearer ${SECRET}`).send({});
    assert.equal(reset.status, 204);
    assert.equal((gw.db.prepare('SELECT COUNT(*) AS n FROM voiceprint_enrolments').get() as { n: number }).n, 0);
  } finally {
    gw.close();
  }
});
