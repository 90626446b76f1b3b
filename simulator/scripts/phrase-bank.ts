/**
 * Sentences a planning meeting is made of, with {slots} the generator fills
 * in (generate-long-planning-session.ts). Kept free of digits and hyphens:
 * espeak-ng says "12" or "follow-up" as several words, which makes word
 * times coarser (simulator/synth/word-times.ts), and the recognizer under
 * test should be judged on plain meeting vocabulary.
 */

export const SLOTS = {
  feature: [
    'customer portal',
    'billing service',
    'mobile app',
    'search feature',
    'reporting dashboard',
    'data export',
    'onboarding flow',
    'notification service',
    'admin console',
    'payment gateway',
    'audit log',
    'analytics pipeline',
  ],
  customer: ['Northwind', 'Contoso', 'Globex', 'Initech', 'Acme Logistics', 'Blue Harbor Bank'],
  team: ['platform team', 'mobile team', 'data team', 'support team', 'design team', 'security team'],
  day: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'],
  month: ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'],
  count: ['two', 'three', 'four', 'five', 'six', 'eight', 'ten', 'twelve'],
  percent: ['five percent', 'ten percent', 'fifteen percent', 'twenty percent', 'thirty percent'],
  amount: ['forty thousand dollars', 'sixty thousand dollars', 'a hundred thousand dollars', 'two hundred thousand dollars'],
} as const;

export type SlotName = keyof typeof SLOTS;

/** One agenda item: how the facilitator opens it, and sentences only it uses. */
export interface AgendaTopic {
  name: string;
  openings: readonly string[];
  statements: readonly string[];
}

export const AGENDA: readonly AgendaTopic[] = [
  {
    name: 'the roadmap for next quarter',
    openings: [
      'First on the agenda is the roadmap for next quarter.',
      'Let us start with the roadmap. We need to lock the priorities for next quarter.',
    ],
    statements: [
      'The roadmap has three themes: reliability, onboarding, and reporting.',
      'I would put the {feature} at the top of the roadmap, because {customer} keeps asking for it.',
      'We promised the {feature} to sales for {month}, so it has to stay on the roadmap.',
      'The roadmap is too full. We cannot deliver all of it with the current team.',
    ],
  },
  {
    name: 'the budget',
    openings: ['Next is the budget. Finance needs our numbers by {day}.', 'Let us move on to the budget for the second half of the year.'],
    statements: [
      'We spent {amount} on cloud infrastructure last quarter, which is {percent} above the forecast.',
      'The travel budget is almost untouched, so we could move some of it to tooling.',
      'Finance wants every team to cut {percent} from discretionary spending.',
      'If we keep the contractors until {month}, that costs another {amount}.',
    ],
  },
  {
    name: 'hiring',
    openings: [
      'Now hiring. We have {count} open positions and only two offers out.',
      'Let us talk about hiring and the interview pipeline.',
    ],
    statements: [
      'The {team} needs a senior engineer before we can take on the {feature}.',
      'Recruiting says the average time to hire is now about {count} weeks.',
      'We could ask the interns to stay on part time until the new hires start.',
      'I would rather hire one strong person than two people who need a lot of support.',
    ],
  },
  {
    name: 'customer escalations',
    openings: ['Next item: customer escalations. {customer} escalated again last week.', 'Let us review the open customer escalations.'],
    statements: [
      '{customer} reported that the {feature} was down for almost an hour on {day}.',
      'The support team closed most of the tickets, but {count} are still waiting on engineering.',
      'Their account manager says the renewal depends on how we handle this.',
      'We should offer them a call with the product owner to explain the fix.',
    ],
  },
  {
    name: 'the release schedule',
    openings: ['Moving on to the release schedule.', 'Now the release schedule. The next release is planned for the end of {month}.'],
    statements: [
      'The release candidate is planned for {day}, and the final release a week later.',
      'We still have {count} critical bugs open against the release.',
      'I would freeze the code on {day} and use the rest of the week for testing.',
      'The last release slipped by two weeks, and sales noticed.',
    ],
  },
  {
    name: 'infrastructure costs',
    openings: ['Let us look at infrastructure costs.', 'Next, infrastructure. The cloud bill keeps growing.'],
    statements: [
      'Most of the cost comes from the {feature}, which still runs on oversized machines.',
      'Reserved instances would save us about {percent} if we commit for a year.',
      'The logging cluster alone costs {amount} a year, and nobody reads most of those logs.',
      'We could move the test environments to smaller machines at night and on weekends.',
    ],
  },
  {
    name: 'the security audit',
    openings: ['Next is the security audit. The auditors arrive in {month}.', 'Let us go through the preparation for the security audit.'],
    statements: [
      'The auditors will ask for evidence that every change to production was reviewed.',
      'The {team} still has {count} findings open from the last penetration test.',
      'We need to rotate the database passwords before the audit starts.',
      'Access reviews for the {feature} are overdue by a month.',
    ],
  },
  {
    name: 'the marketing launch',
    openings: ['Now the marketing launch for the {feature}.', 'Let us talk about the launch plan with marketing.'],
    statements: [
      'Marketing wants a press release on the day the {feature} ships.',
      'The launch webinar is scheduled for {day}, and about {count} hundred people have registered.',
      'We need screenshots and a short demo video by the end of {month}.',
      'The pricing page still shows the old plans. That has to change before the launch.',
    ],
  },
  {
    name: 'risks',
    openings: ['Let us go through the risk register.', 'Next, risks. Which ones changed since last month?'],
    statements: [
      'The biggest risk is still the dependency on a single vendor for payments.',
      'If the {team} loses one more person, the {feature} will slip by a quarter.',
      'The new regulation takes effect in {month}, and our data retention is not ready.',
      'I would add the contract renewal with {customer} to the register as a high risk.',
    ],
  },
];

/** Sentences any topic can use, by what they do in the conversation. */
export const MOVES = {
  status: [
    'The {feature} is on track for the {month} release.',
    'We finished the first milestone of the {feature} last week.',
    'The {team} is still waiting for the design review of the {feature}.',
    'Our velocity dropped this sprint, because two people were on call.',
    'Testing of the {feature} is about {percent} done.',
    'The prototype works, but it is not ready for customers yet.',
    'We closed {count} tickets this week, and the backlog is finally shrinking.',
  ],
  concern: [
    'I am worried about the deadline for the {feature}.',
    'That plan assumes nobody takes vacation in {month}, which is not realistic.',
    'If we slip again, {customer} will escalate to their executive sponsor.',
    'We keep adding scope without moving the deadline.',
    'The estimate for the {feature} was made before we knew about the migration.',
    'I do not think the {team} can absorb more work this quarter.',
  ],
  proposal: [
    'What if we move the {feature} to next quarter and focus on stability?',
    'I suggest we bring in a contractor for {count} months to cover the gap.',
    'We could split the {feature} into two releases and ship the simple part first.',
    'Let us ask the {team} for a rough estimate before we commit to a date.',
    'Maybe we should run a pilot with {customer} before the general release.',
    'I propose a weekly check on the budget until the end of {month}.',
  ],
  agreement: [
    'Agreed.',
    'Makes sense.',
    'Sounds good to me.',
    'Yes, I agree.',
    'Right.',
    'Good point.',
    'Okay, fair enough.',
    'I can live with that.',
  ],
  decision: [
    'Okay, so the decision is to keep the {feature} in scope and move the deadline to {month}.',
    'So we agree: the {team} takes the {feature}, and we review progress on {day}.',
    'Then we approve the extra budget, but only until the end of {month}.',
    'Let us write that down as a decision and revisit it next month.',
  ],
  action: [
    '{person}, can you prepare the numbers for {day}?',
    'I will send the updated roadmap to everyone by {day}.',
    '{person}, please set up a call with {customer} this week.',
    'I will ask the {team} for an estimate and report back on {day}.',
    '{person}, could you update the risk register after this meeting?',
  ],
} as const;

export type Move = keyof typeof MOVES | 'question' | 'answer';

/** Questions with the answers that fit them, so an answer never follows the wrong question. */
export const QUESTIONS: readonly { ask: string; answers: readonly string[] }[] = [
  {
    ask: 'Do we have a date for the beta of the {feature}?',
    answers: ['I think the end of {month} is realistic.', 'Not yet. The {team} will give us one on {day}.'],
  },
  {
    ask: 'How much of the budget is left for {month}?',
    answers: ['About {percent} of it, so we need to be careful.', 'Roughly {amount}, if we include the licences.'],
  },
  {
    ask: 'Who owns the follow up with {customer}?',
    answers: ['I do. I spoke with them on {day}, and they were fine with the plan.', '{person} does, and the next call is on {day}.'],
  },
  {
    ask: 'Has anyone talked to the {team} about this?',
    answers: ['Not yet. I can set up a meeting this week.', 'I did, and they want to see the requirements first.'],
  },
  {
    ask: 'What would it cost to do both?',
    answers: ['Roughly {amount}, and another {count} weeks.', 'More than we have. We would need to drop something.'],
  },
  {
    ask: 'Is that estimate in working days or calendar days?',
    answers: ['Working days. So about {count} weeks in total.', 'Calendar days, with a small buffer.'],
  },
  {
    ask: 'What does the customer actually need by {month}?',
    answers: ['They mostly need the reporting, the rest can wait.', 'A working export and a clear plan for the rest.'],
  },
];

export const CLOSING = [
  'That was the last item. Thanks everyone, this was a long one.',
  'I will send the notes and the action items this afternoon.',
];
