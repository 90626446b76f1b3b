/**
 * Every file a comment names exists. Comments point readers at other files
 * ("the bus fans out to webhooks (features/webhooks/event-catalog.ts)"); when
 * a file moves, a stale pointer sends the next reader nowhere. This test reads
 * the comments of every .ts and .js file of the project's folders (with the
 * TypeScript parser, so strings and regular expressions are not mistaken for
 * comments), picks out what looks like a file path, and fails listing those
 * that name no file.
 *
 * How a name is resolved:
 * - with a slash (kernel/events.ts, docs/decisions/058-one-floor-plan.md,
 *   ../cli/mas.ts): against the commenting file's folder and each folder above
 *   it up to the repository root, and against the specification folder beside
 *   the repository (../shared: spec/API.md);
 * - a bare file name (errors.ts, README.md): some file of that name exists in
 *   the repository or the specification folder.
 * A path broken over two comment lines after a hyphen is read whole. Not judged: absolute paths (/proc/asound/pcm: the machine's
 * files), URLs, another project's files (whisper.cpp's examples/cli/README.md,
 * a package's index.js), what a run writes (reports/, dist/), and patterns or
 * placeholders (*.test.ts, <name>.wav, x.ts, NNN-title.md).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** The folders whose source comments are read. */
const SCANNED = ['server', 'simulator', 'conformance', 'cli', 'client', 'bench', 'common'];
/** Folders that hold no source of the project's own (installed, built or generated). */
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.tmp', 'reports', 'data']);
/** The specification beside the repository (docs and comments name spec/API.md, spec/CONTROL.md). */
const SHARED = path.join(ROOT, '..', 'shared');
/** What a file name ends in, for it to count as one. */
const EXTENSIONS = 'ts|js|mjs|cjs|json|md|yaml|yml|wav|html|css|txt|sh';
/** A path-like name: optional ./ or ../ steps, folders, a file name with one of EXTENSIONS. */
const PATH_LIKE = new RegExp(`(?<![\\w/.:<>*…@$~-])((?:\\.{1,2}/)*(?:[\\w@.-]+/)*\\w[\\w.-]*\\.(?:${EXTENSIONS}))(?![\\w/*<>(-])`, 'g');
/** Names that stand for any file (x.ts, foo.json, DIR/index.json) or that are patterns, not files. */
const PLACEHOLDER = /(^|\/)(x|y|foo|bar|file|name|NNN[-\w]*)\.\w+$|(^|\/)[A-Z][A-Z0-9_]*\/|\*|<|>|\{|\$|…/;
/** What the project writes when it runs (git ignores these folders): named before they exist. */
const WRITTEN = /^(reports|dist|conformance\/dist|data)\//;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED_DIRS.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (/\.(ts|js)$/.test(entry.name)) out.push(full);
  }
  return out;
}

/** The base names of every file of the repository and the specification folder. */
function knownBaseNames(): Set<string> {
  const names = new Set<string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (SKIPPED_DIRS.has(entry.name) || entry.name === '.git') continue;
      if (entry.isDirectory()) walk(path.join(dir, entry.name));
      else names.add(entry.name);
    }
  };
  walk(ROOT);
  if (existsSync(SHARED)) walk(SHARED);
  return names;
}

/** The text of every comment of a source file, with the line it starts on. */
function comments(file: string): { line: number; text: string }[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.js') ? ts.ScriptKind.JS : ts.ScriptKind.TS);
  const seen = new Map<number, { line: number; text: string }>();
  const collect = (ranges: ts.CommentRange[] | undefined): void => {
    for (const r of ranges ?? []) {
      if (seen.has(r.pos)) continue;
      seen.set(r.pos, { line: source.getLineAndCharacterOfPosition(r.pos).line + 1, text: text.slice(r.pos, r.end) });
    }
  };
  const visit = (node: ts.Node): void => {
    collect(ts.getLeadingCommentRanges(text, node.getFullStart()));
    collect(ts.getTrailingCommentRanges(text, node.getEnd()));
    node.forEachChild(visit);
  };
  visit(source);
  collect(ts.getLeadingCommentRanges(text, source.endOfFileToken.getFullStart()));
  return [...seen.values()];
}

/** Whether `name`, written in a comment of `file`, names an existing file. */
function resolves(name: string, file: string, baseNames: Set<string>): boolean {
  if (!name.includes('/')) {
    // A bare name of a source file must be one of the project's; other bare names (bench.md, summary.md) are
    // mostly what a run writes, and an npm package may be named like a file (ipaddr.js).
    if (!/\.(ts|js)$/.test(name)) return true;
    return baseNames.has(name) || existsSync(path.join(ROOT, 'node_modules', name));
  }
  const bases: string[] = [];
  for (let dir = path.dirname(file); dir.startsWith(ROOT.replace(/\/$/, '')); dir = path.dirname(dir)) bases.push(dir);
  bases.push(SHARED);
  return bases.some((base) => existsSync(path.join(base, name)));
}

/** Every stale name: "file:line: name". */
function stalePaths(): string[] {
  const baseNames = knownBaseNames();
  const stale: string[] = [];
  for (const folder of SCANNED) {
    for (const file of sourceFiles(path.join(ROOT, folder))) {
      for (const comment of comments(file)) {
        // A path wrapped at a hyphen continues after the next line's comment star.
        const text = comment.text.replace(/(\w-)\n[ \t]*\*?[ \t]*(?=\w)/g, '$1');
        const line = comment.line;
        for (const match of text.matchAll(PATH_LIKE)) {
          const name = match[1]!;
          const before = text.slice(0, match.index);
          if (/[a-z]+:\/\/\S*$/i.test(before) || PLACEHOLDER.test(name) || WRITTEN.test(name)) continue; // a URL, a pattern, a placeholder, an output
          if (/(\bits|'s)\s+(\*\s+)?$/i.test(before)) continue; // another project's file: whisper.cpp's examples/cli/README.md
          if (!existsSync(SHARED) && /^(spec\/|API\.md|CONTROL\.md|ARCHITECTURE\.md)/.test(name)) continue; // the specification is not beside this checkout
          if (!resolves(name, file, baseNames)) {
            const offset = before.split('\n').length - 1;
            stale.push(`${path.relative(ROOT, file)}:${line + offset}: ${name}`);
          }
        }
      }
    }
  }
  return stale;
}

test('every file path named in a comment exists', () => {
  const stale = stalePaths();
  assert.deepEqual(stale, [], `comments name files that do not exist:\n${stale.join('\n')}`);
});
