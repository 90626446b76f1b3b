/**
 * A QMSum meeting rendered as a simulated meeting: the converter
 * (qmsum-meeting.ts) makes a script, the ordinary renderer
 * (simulator/synth/render-script.ts) speaks it, and the truth file gets one
 * more field, `qmsum`, with where the meeting came from, which of its turns
 * were spoken and the human summary: the ground truth a summary is scored
 * against, beside the words and times a transcript is scored against.
 */
import { writeFile } from 'node:fs/promises';
import { renderScript } from '../synth/render-script.ts';
import type { MeetingTruth, RenderOptions, RenderedMeeting } from '../synth/render-script.ts';
import { qmsumToScript, topicsWithin, wholeMeetingSummary } from './qmsum-meeting.ts';
import type { QmsumCut, QmsumDomain } from './qmsum-meeting.ts';
import type { LoadedQmsumMeeting, QmsumSplit } from './qmsum-source.ts';

/** Who the words and summaries are from; fixtures/qmsum/README.md has the corpora and their licenses. */
const QMSUM_ATTRIBUTION =
  'QMSum (Zhong et al., NAACL 2021; github.com/Yale-LILY/QMSum; MIT License, Copyright (c) 2021 Yale-LILY): ' +
  'transcripts of the AMI and ICSI meeting corpora and of parliamentary committees, with human summaries';

/** The truth's `qmsum` field. */
interface QmsumTruth {
  meeting: string;
  split: QmsumSplit | null;
  domain: QmsumDomain;
  source: string;
  attribution: string;
  /** QMSum turns in the meeting, looked at (the cut), and left out because they were markup only. */
  turns_total: number;
  turns_considered: number;
  turns_dropped_markup_only: number;
  /** True when the whole meeting was rendered; false when --minutes or --turns cut it. */
  complete: boolean;
  cut: QmsumCut;
  /**
   * For each line of the truth's `lines` that the dynamics did not add (no
   * `inserted`; all of them with tidy dynamics), in order, the QMSum turn
   * (index into meeting_transcripts) it was spoken from.
   */
  line_turns: number[];
  /**
   * The human summary of the WHOLE meeting ("Summarize the whole meeting."),
   * also when only its first minutes were rendered (see `complete`).
   */
  summary: { query: string; answer: string } | null;
  /** QMSum's topics with a span starting in the turns rendered (spans index meeting_transcripts, inclusive). */
  topics: { topic: string; relevant_text_span: string[][] }[];
}

type QmsumMeetingTruth = MeetingTruth & { qmsum: QmsumTruth };

export interface RenderedQmsumMeeting extends RenderedMeeting {
  truth: QmsumMeetingTruth;
}

export async function renderQmsum(
  loaded: LoadedQmsumMeeting,
  wavPath: string,
  opts: RenderOptions & QmsumCut = {},
): Promise<RenderedQmsumMeeting> {
  const { minutes, turns, ...renderOptions } = opts;
  const cut: QmsumCut = { ...(minutes !== undefined ? { minutes } : {}), ...(turns !== undefined ? { turns } : {}) };
  const converted = qmsumToScript(loaded.data, { meeting: loaded.meeting, ...cut });
  const rendered = await renderScript(converted.script, wavPath, renderOptions);
  const truth: QmsumMeetingTruth = {
    ...rendered.truth,
    qmsum: {
      meeting: loaded.meeting,
      split: loaded.split,
      domain: loaded.domain,
      source: loaded.source,
      attribution: QMSUM_ATTRIBUTION,
      turns_total: converted.turnsTotal,
      turns_considered: converted.turnsConsidered,
      turns_dropped_markup_only: converted.turnsDropped,
      complete: converted.complete,
      cut,
      line_turns: converted.lineTurns,
      summary: wholeMeetingSummary(loaded.data),
      topics: topicsWithin(loaded.data, converted.turnsConsidered),
    },
  };
  // renderScript wrote the plain truth; the same file again with the QMSum field.
  await writeFile(rendered.truthPath, `${JSON.stringify(truth, null, 2)}\n`);
  return { ...rendered, truth };
}
