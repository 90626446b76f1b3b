/**
 * Turns zod issues into one readable sentence for an error message:
 * "title: must be at most 500 characters; labels.S1: expected string, got number".
 */
import type { z } from 'zod';

const MAX_ISSUES = 5;

export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  const parts = issues.slice(0, MAX_ISSUES).map((issue) => {
    const where = issue.path.length > 0 ? issue.path.map(String).join('.') : 'body';
    return `${clip(where)}: ${clip(issue.message, 160)}`;
  });
  if (issues.length > MAX_ISSUES) parts.push(`and ${issues.length - MAX_ISSUES} more`);
  return parts.join('; ');
}

/** Keeps echoed input (unknown key names, long paths) short and on one line. */
function clip(text: string, max = 60): string {
  const oneLine = text.replace(/[\u0000-\u001f\u007f]/g, ' ');
  return oneLine.length > max ? `${oneLine.slice(0, max)}…` : oneLine;
}
