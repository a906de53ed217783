/**
 * Text from outside (GitHub's check and step names, a reviewer's words, gh's errors, a run's message
 * made of them) as a terminal may be given it. An escape sequence in a check's name would repaint
 * the terminal that prints it, a carriage return would print over the line's start (a forged
 * "success"), a line feed would forge a line of its own, and a bidirectional override would show
 * its characters in another order than they are. The CLI prints such values through these.
 */

/** CSI, OSC (ended by BEL or ST) and the other two-character escapes, as a terminal reads them. */
export const TERMINAL_SEQUENCES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]/g;
/** C0 controls but tab and line feed, DEL, and the C1 controls (U+009B is CSI to a terminal that takes 8-bit controls). */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/** The bidirectional embeddings, overrides and isolates: they reorder what follows them on the screen. */
const BIDI = /[\u202a-\u202e\u2066-\u2069]/g;

/** `text` without escape sequences, control characters or bidirectional overrides; tabs and line feeds kept (a carriage return is a line feed). */
export function printableText(text: string): string {
  return text.replace(TERMINAL_SEQUENCES, '').replace(/\r\n?/g, '\n').replace(CONTROLS, '').replace(BIDI, '');
}

/** `text` as one printed line: `printableText`, its line breaks and tabs each a space. */
export function printableLine(text: string): string {
  return printableText(text).replace(/[\t\n]+/g, ' ');
}
