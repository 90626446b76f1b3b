/**
 * Words as pocketsphinx's dictionary spells them, and pronunciations (CMU
 * ARPAbet phones) for the custom words and prompt words it lacks: espeak-ng's
 * phonemes mapped to CMU phones, or letter rules when espeak-ng is absent
 * (decisions 011 and 032). Both the keyword-spotting pass and the adapted
 * language model's dictionary use them.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { CancelledError, type StageControl } from '../../pipeline/types.ts';

/** Words of a custom entry or prompt: letters, digits, inner apostrophes and hyphens. */
export function tokenize(text: string): string[] {
  return (text.match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu) ?? []).map((t) => t.replace(/’/g, "'"));
}

/** The dictionary spells words in lower-case ASCII; other words get a stable made-up key. */
export function dictionaryKey(token: string): string {
  const lower = token.toLowerCase();
  if (/^[a-z0-9][a-z0-9'-]*$/.test(lower)) return lower;
  let hash = 0;
  for (const ch of lower) hash = (hash * 31 + ch.codePointAt(0)!) >>> 0;
  return `mas-word-${hash.toString(36)}`;
}

const dictionaryCache = new Map<string, Map<string, string>>();
const pronunciationCache = new Map<string, string>();

/** The model's dictionary, first pronunciation per word (read once per process). */
export function loadDictionary(path: string): Map<string, string> {
  let dict = dictionaryCache.get(path);
  if (dict === undefined) {
    dict = new Map();
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      const space = line.indexOf(' ');
      if (space <= 0) continue;
      const word = line.slice(0, space);
      if (word.endsWith(')') || dict.has(word)) continue;
      dict.set(word, line.slice(space + 1).trim());
    }
    dictionaryCache.set(path, dict);
  }
  return dict;
}

/** espeak-ng's phonemes, one line per word ("-x --sep=_": Kirshenbaum-like mnemonics separated by _). */
async function espeakPhonemes(espeak: string, tokens: readonly string[], control: StageControl): Promise<string[] | null> {
  const run = (text: string) =>
    new Promise<string | null>((resolve) => {
      if (control.signal.aborted) {
        resolve(null);
        return;
      }
      const child = spawn(espeak, ['-v', 'en-us', '-q', '-x', '--sep=_', '--stdin'], {
        stdio: ['pipe', 'pipe', 'ignore'],
        signal: control.signal,
      });
      const untrack = control.track(child);
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
      child.stdin.on('error', () => undefined); // a killed child closes its stdin under us
      child.once('error', () => resolve(null));
      child.once('close', (code) => {
        untrack();
        resolve(code === 0 ? out : null);
      });
      child.stdin.end(text);
    });
  // A full stop after each word makes each its own clause, so espeak answers one line per word.
  const out = await run(tokens.map((t) => `${t}.\n`).join(''));
  if (out === null) return null;
  const lines = out.split('\n').filter((l) => l.trim() !== '');
  if (lines.length === tokens.length) return lines;
  // Something split a word into clauses: ask word by word.
  const each: string[] = [];
  for (const t of tokens) {
    if (control.signal.aborted) return null;
    each.push(((await run(`${t}.\n`)) ?? '').split('\n').join(' '));
  }
  return each;
}

/**
 * espeak-ng en-us phoneme mnemonics → CMU (ARPAbet) phones, longest match
 * first. Stress marks and syllable marks are dropped; unknown symbols too.
 */
const ESPEAK_TO_CMU: Record<string, string> = {
  // vowels and diphthongs
  a: 'AE',
  'a#': 'AH',
  aa: 'AE',
  'A:': 'AA',
  A: 'AA',
  'A@': 'AA R',
  'A~': 'AA N',
  aI: 'AY',
  'aI@': 'AY ER',
  aI3: 'AY ER',
  aU: 'AW',
  'aU@': 'AW ER',
  '@': 'AH',
  '@2': 'AH',
  '@5': 'AH',
  '@L': 'AH L',
  '@-': 'AH',
  '3': 'ER',
  '3:': 'ER',
  '@r': 'ER',
  E: 'EH',
  E2: 'EH',
  'E@': 'EH R',
  'e@': 'EH R',
  eI: 'EY',
  e: 'EH',
  i: 'IY',
  'i:': 'IY',
  'i@': 'IY AH',
  'i@3': 'IH R',
  I: 'IH',
  I2: 'IH',
  'I#': 'IH',
  'i#': 'IH',
  '0': 'AA',
  '0@': 'AA R',
  O: 'AO',
  'O:': 'AO',
  O2: 'AO',
  'O@': 'AO R',
  'o@': 'AO R',
  OI: 'OY',
  o: 'OW',
  oU: 'OW',
  'oU#': 'OW',
  U: 'UH',
  'U@': 'UH R',
  'u:': 'UW',
  'u@': 'UH R',
  u: 'UW',
  V: 'AH',
  // consonants
  p: 'P',
  b: 'B',
  t: 'T',
  't#': 'T',
  t2: 'T',
  d: 'D',
  'd#': 'D',
  k: 'K',
  g: 'G',
  x: 'K',
  f: 'F',
  v: 'V',
  T: 'TH',
  D: 'DH',
  s: 'S',
  z: 'Z',
  S: 'SH',
  Z: 'ZH',
  h: 'HH',
  tS: 'CH',
  dZ: 'JH',
  m: 'M',
  n: 'N',
  N: 'NG',
  l: 'L',
  r: 'R',
  w: 'W',
  j: 'Y',
  'n-': 'AH N',
  'm-': 'AH M',
  'l-': 'AH L',
  'r-': 'ER',
  W: 'W',
  C: 'HH',
  '?': '',
};

export function espeakToCmu(line: string): string {
  const phones: string[] = [];
  for (const raw of line.trim().split(/[_\s]+/)) {
    const sym = raw.replace(/[',%=;]/g, '');
    if (sym === '') continue;
    const mapped = ESPEAK_TO_CMU[sym] ?? ESPEAK_TO_CMU[sym.replace(/[0-9#]+$/, '')];
    if (mapped !== undefined && mapped !== '') phones.push(mapped);
  }
  return phones.join(' ');
}

/** Letter groups → CMU phones, longest first: the fallback when espeak-ng is missing. Rough, but names get a path. */
const LETTER_RULES: [string, string][] = [
  ['tch', 'CH'],
  ['sch', 'SH'],
  ['igh', 'AY'],
  ['ch', 'CH'],
  ['sh', 'SH'],
  ['th', 'TH'],
  ['ph', 'F'],
  ['wh', 'W'],
  ['ck', 'K'],
  ['ng', 'NG'],
  ['qu', 'K W'],
  ['kn', 'N'],
  ['ee', 'IY'],
  ['ea', 'IY'],
  ['oo', 'UW'],
  ['ou', 'AW'],
  ['ow', 'OW'],
  ['oa', 'OW'],
  ['ai', 'EY'],
  ['ay', 'EY'],
  ['ei', 'EY'],
  ['ey', 'EY'],
  ['ie', 'IY'],
  ['oi', 'OY'],
  ['oy', 'OY'],
  ['au', 'AO'],
  ['aw', 'AO'],
  ['ue', 'UW'],
  ['a', 'AE'],
  ['b', 'B'],
  ['c', 'K'],
  ['d', 'D'],
  ['e', 'EH'],
  ['f', 'F'],
  ['g', 'G'],
  ['h', 'HH'],
  ['i', 'IH'],
  ['j', 'JH'],
  ['k', 'K'],
  ['l', 'L'],
  ['m', 'M'],
  ['n', 'N'],
  ['o', 'AA'],
  ['p', 'P'],
  ['q', 'K'],
  ['r', 'R'],
  ['s', 'S'],
  ['t', 'T'],
  ['u', 'AH'],
  ['v', 'V'],
  ['w', 'W'],
  ['x', 'K S'],
  ['y', 'Y'],
  ['z', 'Z'],
];

export function lettersToCmu(token: string): string {
  const word = token
    .toLowerCase()
    .normalize('NFD')
    .replace(/[^a-z]/g, '')
    .replace(/(.)\1+/g, '$1');
  const phones: string[] = [];
  let i = 0;
  while (i < word.length) {
    const rest = word.slice(i);
    let rule = LETTER_RULES.find(([g]) => rest.startsWith(g));
    if (rule === undefined) {
      i++;
      continue;
    }
    // A final y sounds like a vowel (Vicky), a final e is silent (Jane) unless it is the only vowel.
    if (rule[0] === 'y' && i > 0 && i === word.length - 1) rule = ['y', 'IY'];
    if (rule[0] === 'e' && i === word.length - 1 && i > 1 && /[aeiouy]/.test(word.slice(0, i))) rule = ['e', ''];
    if (rule[1] !== '') phones.push(rule[1]);
    i += rule[0].length;
  }
  return phones.join(' ');
}

/**
 * CMU pronunciations for words the dictionary lacks, keyed by dictionary key:
 * espeak-ng's when `findEspeak` finds it (asked only when a word is not
 * known yet) and it answers, letter rules otherwise. Kept for the life of
 * the process: the same name costs one espeak-ng run.
 */
export async function pronounce(
  words: readonly [key: string, token: string][],
  findEspeak: () => Promise<string | null>,
  control: StageControl,
): Promise<Map<string, string>> {
  const result = new Map<string, string>();
  const todo = words.filter(([key]) => {
    const cached = pronunciationCache.get(key);
    if (cached !== undefined) result.set(key, cached);
    return cached === undefined;
  });
  if (todo.length === 0) return result;
  const espeak = await findEspeak();
  const lines =
    espeak === null
      ? null
      : await espeakPhonemes(
          espeak,
          todo.map(([, token]) => token),
          control,
        );
  if (control.signal.aborted) throw new CancelledError();
  todo.forEach(([key, token], i) => {
    const fromEspeak = lines === null ? '' : espeakToCmu(lines[i] ?? '');
    const phones = fromEspeak !== '' ? fromEspeak : lettersToCmu(token);
    if (phones === '') return;
    pronunciationCache.set(key, phones);
    result.set(key, phones);
  });
  return result;
}
