/**
 * Text from GitHub (a CI log, a comment's body, gh's error output) made fit to keep: a follow is a
 * PostgreSQL jsonb value, and jsonb refuses `\u0000` and a lone surrogate the file store takes —
 * a record it refuses is a reaction that never starts and a look repeated for ever. Terminal escape
 * sequences go too: they would hide words from the matching and repaint the terminal that prints them.
 * What the CLI prints goes through shared/printable.ts besides, which takes out what a terminal
 * alone minds (C1 controls, bidirectional overrides): kept out of here, since a follow is compared
 * with what was stored, cleaned as it was then.
 */

import { TERMINAL_SEQUENCES } from '../shared/printable.js';

/** Control characters but the tab and the line feed, which a log's or a comment's text needs. */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f]/g;
const LONE_SURROGATES = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `text` without escape sequences, control characters (tab and line feed kept) or lone surrogates. */
export function cleanText(text: string): string {
  return text.replace(TERMINAL_SEQUENCES, '').replace(/\r\n?/g, '\n').replace(CONTROLS, '').replace(LONE_SURROGATES, '\uFFFD');
}

/** The first `max` UTF-16 units of `text`, never half a surrogate pair (an emoji cut in two is a lone surrogate). */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** Every string in `value` (a record about to be saved) cleaned; the rest as it is. */
export function cleanStrings<T>(value: T): T {
  if (typeof value === 'string') return cleanText(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => cleanStrings(item)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, cleanStrings(item)])) as T;
  }
  return value;
}
