/**
 * Shortens a value quoted back in a message (an error naming the bad input, a
 * log line) to `max` characters and an ellipsis, so a megabyte of junk in a
 * query or a header never becomes a megabyte of error body or log.
 */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
