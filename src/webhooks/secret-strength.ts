/**
 * Whether a webhook secret can be guessed (docs/decisions.md, "Webhooks"). `secret_env` names a
 * variable; a workflow on disk may name one that every shell has (`COLORTERM=truecolor`,
 * `TERM_PROGRAM=Apple_Terminal`, a bus address, a path): anyone could then sign deliveries. A
 * list of such names would miss the next one, so the VALUE is judged: a secret has at least
 * `MIN_SECRET_LENGTH` characters and an estimated `MIN_SECRET_BITS` bits.
 *
 * The estimate is a guesser's, in the manner of zxcvbn: the value is read left to right, and
 * - a word (3–16 letters, lower case, upper case or Capitalized, pronounceable: vowels in it, no
 *   five consonants in a row) costs 2 bits when its whole segment between punctuation is words:
 *   paths, terminal names, hosts and sentences are made of words and are guessed as wholes;
 * - a run of at least `MIN_REPEAT` characters seen earlier in the value costs where it was seen;
 * - a run of at least `MIN_SEQUENCE` letters or digits stepping by -1, 0 or +1 (`aaaa`, `1234`,
 *   `fedc`) costs one character and its length;
 * - punctuation costs 3 bits the first time a mark appears and 1 bit after (separators repeat);
 * - any other character costs log2 of the alphabet the value draws from: 16 for a hex value (as
 *   `openssl rand -hex` prints: the words rule is not applied to it), else 26 for each letter case
 *   present plus 10 for digits.
 * Measured on a million values each, `openssl rand -hex 16` (128 bits) is estimated at no less
 * than ~100 bits and a UUID at no less than ~110; `-base64 24` at ~187 on average, about two in a
 * million under 96 (letters that happen to read as words: the message says to make another). The
 * ambient values above stay under ~45, and paths of 100+ characters under ~90.
 */

/** The shortest secret taken: what `openssl rand -hex 16` and `openssl rand -base64 24` print. */
export const MIN_SECRET_LENGTH = 32;
/** The smallest estimate taken (a random 32-character hex or base64 value is estimated at more). */
export const MIN_SECRET_BITS = 96;
/** Values are judged on this many characters at most: enough for any secret, and the scan stays cheap. */
const JUDGED_LENGTH = 256;
const WORD_BITS = 2;
const MIN_REPEAT = 5;
const MIN_SEQUENCE = 4;
const FIRST_MARK_BITS = 3;
const REPEATED_MARK_BITS = 1;

/** The pieces of a letter segment: `AppleTerminal` → Apple, Terminal; `HTMLParser` → HTML, Parser. */
const CASE_PIECE = /[A-Z]{2,}(?![a-z])|[A-Z]?[a-z]+|[A-Z]/g;
const HEX_VALUE = /^(?:[0-9a-f-]+|[0-9A-F-]+)$/;

type CharClass = 'lower' | 'upper' | 'digit' | 'mark';

function classOf(char: string): CharClass {
  if (char >= 'a' && char <= 'z') return 'lower';
  if (char >= 'A' && char <= 'Z') return 'upper';
  if (char >= '0' && char <= '9') return 'digit';
  return 'mark';
}

function isWord(piece: string): boolean {
  if (piece.length < 3 || piece.length > 16) return false;
  const vowels = piece.match(/[aeiou]/gi)?.length ?? 0;
  return vowels >= Math.max(1, piece.length / 5) && !/[^aeiou]{5}/i.test(piece);
}

/** A piece of several in one segment as people join words: `appleTerminal`, `AppleTerminal` (random letters change case anywhere). */
const inCamelCase = (piece: string, index: number) => /^[A-Z][a-z]+$/.test(piece) || (index === 0 && /^[a-z]+$/.test(piece));

/** Where words start in `value`, and their lengths: pieces of letter-only segments made of words alone. */
function wordsOf(value: string): Map<number, number> {
  const words = new Map<number, number>();
  for (const segment of value.matchAll(/[A-Za-z0-9]+/g)) {
    if (/[0-9]/.test(segment[0])) continue;
    const pieces = [...segment[0].matchAll(CASE_PIECE)];
    if (!pieces.every((piece, index) => isWord(piece[0]) && (pieces.length === 1 || inCamelCase(piece[0], index)))) continue;
    for (const piece of pieces) words.set(segment.index + piece.index, piece[0].length);
  }
  return words;
}

/** The length of the longest run at `at` (at least MIN_REPEAT) that also occurs before it; 0 if none. */
function repeatAt(value: string, at: number): number {
  const before = value.slice(0, at);
  let length = MIN_REPEAT;
  while (at + length <= value.length && before.includes(value.slice(at, at + length))) length++;
  return length - 1 >= MIN_REPEAT ? length - 1 : 0;
}

/** The length of the sequence at `at` (one class, a constant step of -1, 0 or +1); under MIN_SEQUENCE: 0. */
function sequenceAt(value: string, at: number): number {
  const kind = classOf(value[at] as string);
  if (kind === 'mark' || at + 1 >= value.length || classOf(value[at + 1] as string) !== kind) return 0;
  const step = value.charCodeAt(at + 1) - value.charCodeAt(at);
  if (Math.abs(step) > 1) return 0;
  let length = 2;
  while (
    at + length < value.length &&
    classOf(value[at + length] as string) === kind &&
    value.charCodeAt(at + length) - value.charCodeAt(at + length - 1) === step
  ) {
    length++;
  }
  return length >= MIN_SEQUENCE ? length : 0;
}

/** The estimated bits a guesser needs for `value` (see above). */
export function estimateSecretBits(text: string): number {
  const value = text.slice(0, JUDGED_LENGTH);
  const hex = HEX_VALUE.test(value) && /[0-9]/.test(value) && /[a-f]/i.test(value);
  const alphabet = hex ? 16 : (/[a-z]/.test(value) ? 26 : 0) + (/[A-Z]/.test(value) ? 26 : 0) + (/[0-9]/.test(value) ? 10 : 0);
  const charBits = alphabet > 0 ? Math.log2(alphabet) : 0;
  const words = hex ? new Map<number, number>() : wordsOf(value);
  let bits = 0;
  for (let at = 0; at < value.length;) {
    const repeat = repeatAt(value, at);
    if (repeat > 0) {
      bits += Math.log2(at) + 1;
      at += repeat;
      continue;
    }
    const word = words.get(at);
    if (word !== undefined) {
      bits += WORD_BITS;
      at += word;
      continue;
    }
    const sequence = sequenceAt(value, at);
    if (sequence > 0) {
      bits += charBits + Math.log2(sequence);
      at += sequence;
      continue;
    }
    const char = value[at] as string;
    if (classOf(char) === 'mark') bits += value.slice(0, at).includes(char) ? REPEATED_MARK_BITS : FIRST_MARK_BITS;
    else bits += charBits;
    at += 1;
  }
  return bits;
}

/**
 * Why `value` is too weak to be a webhook secret, in words that never repeat it; undefined when it
 * is strong enough.
 */
export function secretWeakness(value: string): string | undefined {
  if (value.length < MIN_SECRET_LENGTH)
    return `it has ${value.length} character${value.length === 1 ? '' : 's'}, and a secret needs at least ${MIN_SECRET_LENGTH}`;
  const bits = estimateSecretBits(value);
  if (bits < MIN_SECRET_BITS) {
    return `it is guessable (words, repeats and sequences; an estimated ${Math.floor(bits)} bits, and a secret needs ${MIN_SECRET_BITS})`;
  }
  return undefined;
}

/** How to make a good one, for messages. */
export const SECRET_ADVICE = 'set it to a random value, e.g. the output of `openssl rand -hex 32`';
