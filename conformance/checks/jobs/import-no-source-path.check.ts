import { defineCheck } from '../../harness/check.ts';
import * as x from '../../harness/expect.ts';
import { importBytes, isTerminal, jobIdOf, pollJob, speechWav, toneWav, transcriptWords } from '../../harness/jobs.ts';
import { speechPath } from '../../harness/audio.ts';
import type { BoundClient } from '../../harness/context-types.ts';
import type { HttpResult } from '../../harness/http.ts';

/** The words of the transcript of the meeting a job made, or null with why there is none. */
async function wordsOf(api: BoundClient, meetingId: unknown): Promise<{ words: Set<string> } | { none: string }> {
  if (typeof meetingId !== 'string') return { none: 'the job named no meeting' };
  const t = await api.get(`/v1/meetings/${meetingId}/transcript`);
  if (t.status !== 200) return { none: `GET …/transcript answered ${t.describe(120)}` };
  return { words: transcriptWords(t.body) };
}

/**
 * Imports `bytes` and reads the words of the meeting it made: an empty set when the job ended
 * otherwise than succeeded (nothing was transcribed), null with why when the answer cannot be read.
 */
async function wordsOfImport(
  api: BoundClient,
  bytes: Uint8Array,
  query: Record<string, string>,
  label: string,
): Promise<{ words: Set<string>; state: unknown; last: HttpResult } | { refused: HttpResult } | { none: string }> {
  const res = await importBytes(api, bytes, query, label);
  const id = jobIdOf(res);
  if (id === null) return { refused: res };
  const { res: last, job, reached } = await pollJob(api, id, isTerminal, 120_000);
  if (!reached) return { none: `the import (${label}) did not end within the 120 s wait (state ${x.show(job.state)})` };
  if (job.state !== 'succeeded') return { words: new Set(), state: job.state, last };
  const got = await wordsOf(api, job.meeting_id);
  if ('none' in got) return { none: `the import (${label}) succeeded but its transcript cannot be read: ${got.none}` };
  return { words: got.words, state: job.state, last };
}

export const check = defineCheck({
  id: 'jobs/import-no-source-path',
  clauses: ['jobs.import.no-source-path'],
  level: 'requirement',
  touches: 'own',
  needs: ['token', 'local'],
  timeoutMs: 150_000,
  description:
    'Premise: the target transcribes an upload of a speech WAV into words, and a plain tone (no ' +
    'speech, no path parameter) does not give the same words, so its transcripts tell the uploaded ' +
    'bytes apart (else SKIPPED: a stub or fixed recognizer hears the same words in any sound). Then ' +
    'uploads the same tone with path, source, source_path, file and url parameters naming that ' +
    'speech WAV on this machine (the target runs here): whatever the tone becomes (a failed job, an ' +
    'empty meeting), its transcript must hold none of the speech’s words the plain tone lacked.',
  requirement:
    'Import has no source-path parameter, so the service imports only the uploaded bytes and ' +
    'never reads a server-side path named by the caller.',
  async run(ctx) {
    const api = ctx.as(await ctx.token(['read', 'write']));
    let speech: Uint8Array;
    try {
      speech = await speechWav();
    } catch (err) {
      return ctx.skip(`cannot read the shipped speech WAV to point at: ${(err as Error).message}`);
    }
    // The premise: an import of the speech itself yields its words here. Without it, a transcript
    // free of those words would say nothing about which bytes were imported.
    const control = await importBytes(api, speech, { filename: 'speech.wav' }, 'premise: import the speech WAV itself');
    const controlId = jobIdOf(control);
    if (controlId === null)
      return ctx.skip(`premise not met: the import of the speech WAV itself was not accepted (${control.describe(160)})`);
    const { job: controlJob, reached: controlDone } = await pollJob(api, controlId, isTerminal, 120_000);
    if (!controlDone || controlJob.state !== 'succeeded')
      return ctx.skip(
        `premise not met: the import of the speech WAV itself ended ${x.show(controlJob.state)}, so a named file being read could not be told apart`,
      );
    const heard = await wordsOf(api, controlJob.meeting_id);
    if ('none' in heard || heard.words.size === 0)
      return ctx.skip(
        `premise not met: the import of the speech WAV itself gave no words to look for (${'none' in heard ? heard.none : 'an empty transcript'})`,
      );

    // The second premise: the transcripts tell the uploaded bytes apart. A target whose recognizer
    // hears the same words in any sound (a stub, a placeholder, a remote recognizer in CI) transcribes
    // a plain tone into the speech's words too; only the words a plain tone lacks can show that the
    // named file was read (decision 073).
    const plain = await wordsOfImport(api, toneWav(), { filename: 'tone.wav' }, 'premise: a plain tone, no path parameter');
    if ('none' in plain) return ctx.skip(`premise not met: ${plain.none}`);
    const plainWords = 'refused' in plain ? new Set<string>() : plain.words;
    const telling = [...heard.words].filter((w) => !plainWords.has(w));
    if (telling.length * 2 < heard.words.size)
      return ctx.skip(
        `premise not met: the target's transcripts do not tell the uploaded bytes apart: a plain tone, uploaded with no path parameter, ` +
          `already gave ${heard.words.size - telling.length} of the speech's ${heard.words.size} words (${[...heard.words].filter((w) => plainWords.has(w)).join(' ')})`,
      );

    const real = speechPath('tiny');
    const named = await wordsOfImport(
      api,
      toneWav(),
      { filename: 'tone.wav', path: real, source: real, source_path: real, file: real, url: `file://${real}` },
      'a tone, with path-like parameters naming the speech WAV',
    );
    if ('refused' in named) {
      // Refusing the path-like parameters outright also keeps the named file unread.
      ctx.expect(
        'jobs.import.no-source-path',
        'POST /v1/jobs/import of a tone with path-like parameters',
        x.refused(named.refused),
        named.refused,
      );
      return;
    }
    if ('none' in named) return ctx.skip(named.none);
    if (named.state !== 'succeeded') {
      ctx.note(`the tone import ended ${x.show(named.state)}: the named speech file, which imports here, was not imported in its place`);
      return;
    }
    const shared = telling.filter((w) => named.words.has(w));
    ctx.expect(
      'jobs.import.no-source-path',
      `the transcript of the tone uploaded with path=${real}`,
      x.that(
        shared.length * 2 < telling.length,
        `none of the speech's words a plain tone lacks (${telling.join(' ')}): the uploaded tone was imported`,
        `it holds ${shared.length} of them: ${shared.join(' ')}`,
      ),
      named.last,
    );
  },
});
