/**
 * Summary templates: the sections a summary has, for the extractive
 * summarizer (which picks sentences per section by cue words) and for the
 * chat summarizer (which is told the sections and what goes in each).
 * RegenerateSummaryRequest.template_id names one; the default is
 * daily_standup (API.md, Summary). Decision 011.
 */

export interface TemplateSection {
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
        describe: 'what each person will work on next',
        cues: [
          // A speaker committing themselves ("I will …") counts twice: as "will" and as "i will".
          'today',
          'tomorrow',
          'will',
          'i will',
          'we will',
          "i'll",
          "we'll",
          'going to',
          'plan',
          'planning',
          'next',
          'this week',
          'continue',
          'start on',
          'start with',
          'starting',
          'focus',
          'pick up',
          'aim to',
          // When and how long: dates and estimates mark what is planned.
          'monday',
          'tuesday',
          'wednesday',
          'thursday',
          'friday',
          'by the end',
          'end of the',
          'deadline',
          'takes about',
          'days',
          'weeks',
          'book',
          'schedule',
          'owns',
          'owner',
        ],
        max: 8,
        empty: NONE,
      },
      {
        title: 'Blockers',
        describe: 'what stops someone or what they are waiting for, and who needs help',
        cues: [
          'blocked',
          'blocker',
          'blockers',
          'blocking',
          'waiting',
          'stuck',
          'issue',
          'issues',
          'problem',
          'problems',
          'depends on',
          'need help',
          "can't",
          'cannot',
          'delayed',
          'risk',
          'broken',
          'failing',
          'bug',
          'bugs',
          'wrong',
          'times out',
          'fails',
        ],
        max: 5,
        empty: 'No blockers mentioned.',
      },
    ],
    priority: ['Blockers', 'Updates', 'Plans'],
  },
  meeting_notes: {
    id: 'meeting_notes',
    title: 'Meeting notes',
    sections: [
      { title: 'Overview', describe: 'two or three sentences on what the meeting was about', cues: [], max: 2, empty: NONE },
      { title: 'Key points', describe: 'the main points raised, one per bullet', cues: [], max: 5, empty: NONE },
      {
        title: 'Decisions',
        describe: 'what was decided or agreed',
        cues: [
          'decided',
          'decide',
          'decision',
          'agreed',
          'agree',
          'approved',
          'approve',
          'settled',
          'go with',
          'going with',
          'final',
          'conclusion',
          'resolved',
          "let's go",
        ],
        max: 5,
        empty: 'No decisions recorded.',
      },
      {
        title: 'Action items',
        describe: 'who will do what, and by when if said',
        cues: [
          'will',
          "i'll",
          "we'll",
          "you'll",
          'action item',
          'todo',
          'to do',
          'follow up',
          'take care',
          'by monday',
          'by tuesday',
          'by wednesday',
          'by thursday',
          'by friday',
          'by tomorrow',
          'next week',
          'next step',
          'need to',
          'needs to',
          'should',
          "let's",
          'assign',
          'send',
          'on monday',
          'on tuesday',
          'on wednesday',
          'on thursday',
          'on friday',
          'takes about',
          'book',
          'schedule',
          'owns',
        ],
        max: 6,
        empty: 'No action items recorded.',
      },
    ],
    priority: ['Decisions', 'Action items'],
  },
  one_on_one: {
    id: 'one_on_one',
    title: 'One-on-one',
    sections: [
      { title: 'Discussion', describe: 'the main topics talked about', cues: [], max: 4, empty: NONE },
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
        cues: ['follow up', 'will', "i'll", "we'll", 'next time', 'check in', 'action', 'before our next', 'by next'],
        max: 4,
        empty: NONE,
      },
    ],
    priority: ['Feedback', 'Goals', 'Follow-ups'],
  },
  brief: {
    id: 'brief',
    title: 'Brief',
    sections: [{ title: 'Summary', describe: 'the few sentences that best say what the meeting was about', cues: [], max: 4, empty: NONE }],
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
