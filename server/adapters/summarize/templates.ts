/**
 * Summary templates: the sections a summary has, for the extractive
 * summarizer (which fills most sections from the meeting notes —
 * server/adapters/summarize/notes.ts — and the rest by cue words) and for
 * the chat summarizer (which is told the sections and what goes in each).
 * RegenerateSummaryRequest.template_id names one; the default is
 * daily_standup (API.md, Summary). Decisions 011 and 078.
 */
import type { MeetingNotes } from './notes.ts';

/** Which part of the meeting notes fills a section. */
type NotesPart = keyof Pick<MeetingNotes, 'topics' | 'decisions' | 'actions' | 'blockers' | 'questions'>;

interface TemplateSection {
  title: string;
  /** What belongs here, in words: the instruction a language model gets. */
  describe: string;
  /**
   * Cue phrases (whole words, case-insensitive) that put a sentence in this
   * section; empty for a section filled by rank alone.
   */
  cues: readonly string[];
  /** At most this many sentences. */
  max: number;
  /** Shown when nothing fits. */
  empty: string;
  /** The part of the meeting notes this section shows; its cues are then unused. */
  notes?: NotesPart;
}

export interface SummaryTemplate {
  id: string;
  title: string;
  sections: readonly TemplateSection[];
  /**
   * When a sentence has cues of several sections, the section earlier in
   * this list takes it on a tie (a blocker matters more than a plan).
   */
  priority: readonly string[];
}

const NONE = 'None mentioned.';

export const TEMPLATES = {
  daily_standup: {
    id: 'daily_standup',
    title: 'Daily stand-up',
    sections: [
      {
        title: 'Updates',
        describe: 'what each person finished or worked on since the last stand-up, with who said it',
        cues: [
          'yesterday',
          'did',
          'done',
          'finished',
          'finish',
          'completed',
          'shipped',
          'merged',
          'fixed',
          'deployed',
          'released',
          'worked on',
          'wrapped up',
          'last week',
          'managed to',
          'closed',
          'reviewed',
          'implemented',
          'added',
          'updated',
        ],
        max: 6,
        empty: NONE,
      },
      {
        title: 'Plans',
        describe: 'what each person will work on next: owner, task, and the due date if one was said',
        cues: [],
        max: 5,
        empty: 'No plans or action items mentioned.',
        notes: 'actions',
      },
      {
        title: 'Blockers',
        describe: 'what stops someone or what they are waiting for, and who needs help',
        cues: [],
        max: 5,
        empty: 'No blockers mentioned.',
        notes: 'blockers',
      },
    ],
    priority: ['Blockers', 'Updates', 'Plans'],
  },
  meeting_notes: {
    id: 'meeting_notes',
    title: 'Meeting notes',
    sections: [
      {
        title: 'Overview',
        describe: 'the topics in the order they came up, one line each',
        cues: [],
        max: 6,
        empty: NONE,
        notes: 'topics',
      },
      {
        title: 'Decisions',
        describe: 'what was decided or agreed, with who proposed it and who agreed',
        cues: [],
        max: 5,
        empty: 'No decisions recorded.',
        notes: 'decisions',
      },
      {
        title: 'Action items',
        describe: 'who will do what, and by when if said (the date as YYYY-MM-DD)',
        cues: [],
        max: 6,
        empty: 'No action items recorded.',
        notes: 'actions',
      },
      {
        title: 'Blockers and risks',
        describe: 'what stops the work or could go wrong',
        cues: [],
        max: 3,
        empty: 'No blockers or risks mentioned.',
        notes: 'blockers',
      },
      {
        title: 'Open questions',
        describe: 'questions raised and left without an answer',
        cues: [],
        max: 3,
        empty: 'No open questions.',
        notes: 'questions',
      },
    ],
    priority: [],
  },
  one_on_one: {
    id: 'one_on_one',
    title: 'One-on-one',
    sections: [
      {
        title: 'Discussion',
        describe: 'the main topics talked about, in the order they came up',
        cues: [],
        max: 4,
        empty: NONE,
        notes: 'topics',
      },
      {
        title: 'Feedback',
        describe: 'feedback given or asked for, praise and concerns',
        cues: [
          'feedback',
          'great job',
          'well done',
          'good job',
          'improve',
          'improvement',
          'concern',
          'concerned',
          'appreciate',
          'suggest',
          'suggestion',
          'proud',
          'worried',
          'expectation',
          'expectations',
        ],
        max: 4,
        empty: NONE,
      },
      {
        title: 'Goals',
        describe: 'goals, growth and career topics',
        cues: ['goal', 'goals', 'growth', 'career', 'learn', 'learning', 'develop', 'promotion', 'aim', 'want to', 'skills', 'training'],
        max: 4,
        empty: NONE,
      },
      {
        title: 'Follow-ups',
        describe: 'what each side will do before the next meeting',
        cues: [],
        max: 4,
        empty: 'No follow-ups agreed.',
        notes: 'actions',
      },
    ],
    priority: ['Feedback', 'Goals', 'Follow-ups'],
  },
  brief: {
    id: 'brief',
    title: 'Brief',
    sections: [
      {
        title: 'Summary',
        describe: 'the few sentences that best say what the meeting was about',
        cues: [],
        max: 4,
        empty: NONE,
        notes: 'topics',
      },
    ],
    priority: [],
  },
} as const satisfies Record<string, SummaryTemplate>;

export type TemplateId = keyof typeof TEMPLATES;
export const TEMPLATE_IDS = Object.keys(TEMPLATES) as TemplateId[];
export const DEFAULT_TEMPLATE_ID: TemplateId = 'daily_standup';

export function isTemplateId(id: string): id is TemplateId {
  return Object.hasOwn(TEMPLATES, id);
}

/** The template for an id; the default for an unknown one (callers validate ids before, this is the safety net). */
export function templateFor(id: string): SummaryTemplate {
  return isTemplateId(id) ? TEMPLATES[id] : TEMPLATES[DEFAULT_TEMPLATE_ID];
}
