/**
 * Reads a hypothesis file in any of the formats `simulator score` takes,
 * named or told from the file: the extension, and for .txt and .json a look
 * at the content (the API's export documents, pocketsphinx's -time output).
 * A malformed file is one HypothesisFileError naming the file, where and what
 * was expected; nothing is returned from half a file.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseApiExport, parseApiJson } from './api-formats.ts';
import { HypothesisSyntaxError } from './hypothesis.ts';
import type { ParsedHypothesis } from './hypothesis.ts';
import { parseCtm, parseRttmStrict, parseStm } from './nist-formats.ts';
import { parseSrt, parseVtt } from './subtitle-formats.ts';
import { parsePlainText, parsePocketsphinxTimes } from './text-formats.ts';

export const TRANSCRIPT_FORMATS = ['stm', 'ctm', 'srt', 'vtt', 'txt', 'api-json', 'api-export', 'pocketsphinx'] as const;
export const DIARIZATION_FORMATS = ['rttm', 'api-json', 'stm'] as const;
export type HypothesisFormat = (typeof TRANSCRIPT_FORMATS)[number] | (typeof DIARIZATION_FORMATS)[number];

const PARSERS: Record<HypothesisFormat, (text: string) => ParsedHypothesis> = {
  stm: parseStm,
  ctm: parseCtm,
  srt: parseSrt,
  vtt: parseVtt,
  txt: parsePlainText,
  'api-json': parseApiJson,
  'api-export': parseApiExport,
  pocketsphinx: parsePocketsphinxTimes,
  rttm: parseRttmStrict,
};

/** A hypothesis that cannot be read or scored: one line, "<file>: <where>: expected <what>". */
export class HypothesisFileError extends Error {
  constructor(file: string, detail: string) {
    super(`${file}: ${detail}`);
    this.name = 'HypothesisFileError';
  }
}

/** A word line of pocketsphinx_continuous -time yes: "word(2) 1.230 1.560 0.871" (always with decimals, unlike a plain text's numbers). */
const POCKETSPHINX_WORD_LINE = /^\S+ \d+\.\d+ \d+\.\d+ -?\d+\.\d+(e-?\d+)?$/m;

/** The format a file is in, from its extension and, for .txt, .md and .json, its content. */
export function detectFormat(file: string, text: string): HypothesisFormat | null {
  const ext = path.extname(file).slice(1).toLowerCase();
  switch (ext) {
    case 'stm':
    case 'ctm':
    case 'srt':
    case 'vtt':
    case 'rttm':
      return ext;
    case 'webvtt':
      return 'vtt';
    case 'json':
      return 'api-json';
    case 'md':
      return 'api-export';
    case 'txt':
    case 'hyp':
    case 'log': {
      const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
      // The export's txt: title, "===" underline, a Date line, ... TRANSCRIPT.
      if (/^=+$/.test(lines[1] ?? '') && lines.includes('TRANSCRIPT')) return 'api-export';
      if (POCKETSPHINX_WORD_LINE.test(text)) return 'pocketsphinx';
      return 'txt';
    }
    default:
      return null;
  }
}

export interface ReadHypothesis extends ParsedHypothesis {
  file: string;
  format: HypothesisFormat;
}

/**
 * Reads and parses `file`. `format` names it (else detectFormat); `allowed`
 * is the set the caller scores (a transcript, a diarization).
 */
export async function readHypothesis(
  file: string,
  format: string | undefined,
  allowed: readonly HypothesisFormat[],
): Promise<ReadHypothesis> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new HypothesisFileError(file, `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const chosen = format ?? detectFormat(file, text);
  if (chosen === null) throw new HypothesisFileError(file, `cannot tell the format from the name; give one of ${allowed.join(', ')}`);
  if (!(allowed as readonly string[]).includes(chosen))
    throw new HypothesisFileError(file, `format "${chosen}" is not one of ${allowed.join(', ')}`);
  const f = chosen as HypothesisFormat;
  try {
    return { file, format: f, ...PARSERS[f](text) };
  } catch (error) {
    if (error instanceof HypothesisSyntaxError) throw new HypothesisFileError(file, `${error.message} (read as ${f})`);
    throw error;
  }
}
