/**
 * Names from what is said, over HTTP (decision 152): the README's standup
 * seeded as a recognizer would write it, the user's custom words set, and the
 * transcript read. A proposal is listed apart and never applied; a user's
 * label takes the speaker and the name out of the proposals.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import request from 'supertest';
import { ALL_SCOPES, testGateway } from '../../testing/gateway.ts';
import { asRecognized, STANDUP } from '../../testing/recognized-lines.ts';

const gw = testGateway();
const auth = gw.bearer(ALL_SCOPES);
after(() => gw.close());

const standup = STANDUP;

/** The standup's lines in lower case without punctuation, one second per word. */
function seedStandup(): string {
  const segments = asRecognized(standup.lines);
  return gw.deps.meetings.create({ title: standup.title, created_at: '2026-11-20T09:00:00Z', segments, summary: null, audio: false }).id;
}

describe('proposed_names on the transcript', () => {
  test('none without typed names; with the custom words, Emeka, Fiona and Hiro, unapplied', async () => {
    const id = seedStandup();
    const before = await request(gw.app).get(`/v1/meetings/${id}/transcript`).set('Authorization', auth);
    assert.equal(before.status, 200);
    assert.deepEqual(before.body.proposed_names, []);

    const put = await request(gw.app)
      .put('/v1/config/custom-words')
      .set('Authorization', auth)
      .send({ enabled: true, words: standup.bias.custom_words });
    assert.equal(put.status, 200);
    const res = await request(gw.app).get(`/v1/meetings/${id}/transcript`).set('Authorization', auth);
    const proposals = res.body.proposed_names as { speaker: string; name: string; evidence: string; at: number; cue: string }[];
    assert.deepEqual(
      proposals.map((p) => [p.speaker, p.name, p.cue, p.evidence]),
      [
        ['S2', 'Emeka', 'addressed', 'emeka do you want to start'],
        ['S3', 'Fiona', 'addressed', 'thanks fiona'],
        ['S4', 'Hiro', 'thanked', 'thank you hiro that'],
      ],
    );
    // Never applied: every speaker is still unnamed.
    assert.ok((res.body.speakers as { name: string | null }[]).every((s) => s.name === null));

    const exported = await request(gw.app).get(`/v1/meetings/${id}/export`).set('Authorization', auth);
    assert.deepEqual(exported.body.transcript.proposed_names, proposals);
  });

  test("a user's label takes its speaker and its name out of the proposals", async () => {
    const id = seedStandup();
    const labelled = await request(gw.app)
      .put(`/v1/meetings/${id}/speaker-labels`)
      .set('Authorization', auth)
      .send({ labels: { S4: 'Hiro', S1: 'Fiona' } });
    assert.equal(labelled.status, 200);
    const res = await request(gw.app).get(`/v1/meetings/${id}/transcript`).set('Authorization', auth);
    assert.deepEqual(
      (res.body.proposed_names as { speaker: string; name: string }[]).map((p) => [p.speaker, p.name]),
      [['S2', 'Emeka']],
    );
    assert.deepEqual(gw.errors, []);
  });
});
