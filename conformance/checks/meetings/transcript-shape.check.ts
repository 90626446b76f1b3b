import { defineCheck } from '../../harness/check.ts';
import { speechTruth } from '../../harness/audio.ts';
import type { CheckContext } from '../../harness/context.ts';
import type { BoundClient } from '../../harness/context-types.ts';
import type { HttpResult } from '../../harness/http.ts';
import * as x from '../../harness/expect.ts';

/** Every number anywhere inside a value. */
function numbers(value: unknown, out: number[] = []): number[] {
  if (typeof value === 'number') out.push(value);
  else if (Array.isArray(value)) value.forEach((v) => numbers(v, out));
  else if (value !== null && typeof value === 'object') Object.values(value).forEach((v) => numbers(v, out));
  return out;
}

const near = (list: number[], t: number): boolean => list.some((n) => Math.abs(n - t) < 0.011 || Math.abs(n - t * 1000) < 11);

export const check = defineCheck({
  id: 'meetings/transcript-shape',
  clauses: ['meetings.transcript.shape'],
  level: 'requirement',
  touches: 'own',
  needs: ['token', 'meeting'],
  description:
    'GET /v1/meetings/{id}/transcript of a meeting seeded from the simulator’s two-person-call ' +
    'script answers meeting_id, title and one segment per line, in order, each carrying its ' +
    'speaker and its start and end times (seconds or milliseconds; the field names are a gap). ' +
    'Without the Control API the meeting is an import of the shipped speech: meeting_id and ' +
    'title as imported, at least one segment, each with timestamps inside the audio and the ' +
    'speech’s words across the text; a speaker field, whose name is a gap, is looked for by ' +
    'name and noted when not found.',
  requirement:
    'GET /v1/meetings/{id}/transcript returns meeting_id, title and segments, an array whose ' +
    'items carry a speaker, timestamps and optional word timings.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read']));
    if (!ctx.has('meetings')) return importedTranscript(ctx, api);
    const m = await ctx.fixtures.scriptMeeting('two-person-call');
    const { res, body } = await readTranscript(ctx, api, m);
    ctx.require(
      'meetings.transcript.shape',
      'number of segments',
      x.equal(body.segments.length, m.seed.segments.length, 'segments.length'),
      res,
    );
    m.seed.segments.forEach((seed, i) => {
      const seg = body.segments[i];
      ctx.expect(
        'meetings.transcript.shape',
        `segments[${i}] carries its speaker`,
        x.that(x.containsString(seg, seed.speaker), `the speaker "${seed.speaker}" in the segment`, x.show(seg, 200)),
        res,
      );
      const ns = numbers(seg);
      ctx.expect(
        'meetings.transcript.shape',
        `segments[${i}] carries its timestamps`,
        x.that(near(ns, seed.start) && near(ns, seed.end), `start ${seed.start} and end ${seed.end} (s or ms)`, x.show(seg, 200)),
        res,
      );
    });
  },
});

/**
 * The same on a meeting made by importing the shipped speech (about 5 s, two
 * speakers): the recognizer chooses the segments, so their count and text are
 * not fixed; their times must lie inside the audio.
 */
async function importedTranscript(ctx: CheckContext, api: BoundClient): Promise<void> {
  const m = await ctx.fixtures.meetingToRead();
  const truth = await speechTruth('tiny');
  const { res, body } = await readTranscript(ctx, api, m);
  ctx.expect(
    'meetings.transcript.shape',
    'segments of a meeting with speech',
    x.that(body.segments.length > 0, 'at least one segment', `${body.segments.length} segments`),
    res,
  );
  const end = truth.duration + 0.5;
  const inside = (n: number): boolean => (n >= 0 && n <= end) || (n >= 0 && n <= end * 1000 && n > end);
  body.segments.forEach((seg, i) => {
    const ns = numbers(seg).filter(inside);
    ctx.expect(
      'meetings.transcript.shape',
      `segments[${i}] carries its timestamps`,
      x.that(ns.length >= 2, `a start and an end inside the ${truth.duration} s of audio (s or ms)`, x.show(seg, 200)),
      res,
    );
    const named = seg !== null && typeof seg === 'object' && Object.keys(seg).some((k) => /speaker/i.test(k));
    if (!named) ctx.note(`segments[${i}] has no field named like speaker (${x.show(seg, 120)}); its name is a gap, so this is not graded`);
  });
}

/** GET the transcript of a meeting and check its envelope: the fields, the meeting's id and its title. */
async function readTranscript(
  ctx: CheckContext,
  api: BoundClient,
  m: { id: string; seed: { title: string } },
): Promise<{ res: HttpResult; body: { meeting_id: unknown; title: unknown; segments: unknown[] } }> {
  const res = await api.get(`/v1/meetings/${m.id}/transcript`);
  ctx.require(
    'meetings.transcript.shape',
    'GET /v1/meetings/{id}/transcript',
    x.all(
      x.status(res, 200),
      x.json(res),
      x.fields(res.body, { meeting_id: 'any', title: 'string', segments: 'array' }, 'TranscriptResponse'),
    ),
    res,
  );
  const body = res.body as { meeting_id: unknown; title: unknown; segments: unknown[] };
  ctx.expect(
    'meetings.transcript.shape',
    'meeting_id and title',
    x.equal({ meeting_id: body.meeting_id, title: body.title }, { meeting_id: m.id, title: m.seed.title }, 'transcript'),
    res,
  );
  return { res, body };
}
