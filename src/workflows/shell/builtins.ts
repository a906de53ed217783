/**
 * Builtins that take variable names (`read`, `unset`, `printf -v`, `getopts`, `mapfile`, `test -v`),
 * arithmetic (`let`), code (`eval`, `trap`, `alias`, `mapfile -C`), a file to run (`source`), and
 * the declaration builtins (`declare`, `local`, `export` …, with `-i` and `-n`).
 */

import type { ShellWord, SimpleCommand } from './outline.js';
import { addJoinedCode, addProgramPath, addWrite, readAssignment, type CommandReading } from './reading.js';

const DECLARATIONS = new Set(['declare', 'typeset', 'local', 'export', 'readonly']);

/** Builtins whose words starting with `-` are operands (`test -v x`, `let -1`), not options. */
const WITHOUT_OPTIONS = new Set(['test', '[', 'let', 'eval', 'source', '.', 'getopts']);
const isOption = (word: ShellWord | undefined): boolean => word?.literal !== undefined && word.literal.length > 1 && /^[-+]/.test(word.literal);

/**
 * Whether `printf -v NAME` sets NAME to a number whatever its argument: a format of one `%d`, `%i`
 * or `%u` and one argument. bash converts the argument with strtoimax, never arithmetic: what is
 * not a number is an error, and the variable gets the number read up to there (0 at worst).
 */
function printsNumber(name: string, after: readonly ShellWord[]): boolean {
  return name === 'printf' && after.length === 2 && ['%d', '%i', '%u'].includes(after[0]?.literal ?? '');
}

/** Builtins that take variable names or arithmetic, and the declaration builtins. */
export function readBuiltin(reading: CommandReading, command: SimpleCommand, rest: readonly ShellWord[], name: string): void {
  const operands: ShellWord[] = [];
  let flags = '';
  const valueOptions: Record<string, string> = { read: 'dinNptu', mapfile: 'dnOsucC', readarray: 'dnOsucC', printf: 'v', wait: 'p', trap: '', unset: '' };
  const arrayOption: Record<string, string> = { read: 'a' };
  for (let j = 0; j < rest.length; j++) {
    const word = rest[j] as ShellWord;
    const text = word.literal;
    if (operands.length === 0 && text === '--') continue;
    if (operands.length > 0 || !isOption(word) || text === undefined || WITHOUT_OPTIONS.has(name)) {
      operands.push(word); // options come before the operands
      continue;
    }
    flags += text.slice(1);
    const letter = [...text.slice(1)].find((l) => (valueOptions[name] ?? '').includes(l) || arrayOption[name] === l);
    if (!letter) continue;
    // The option's value: the next word, or the rest of this one (`printf -vn`, `read -ra`).
    const attached = text.slice(text.indexOf(letter) + 1);
    const value = attached !== '' ? undefined : rest[++j];
    const writes = letter === arrayOption[name] || (name === 'printf' && letter === 'v') || (name === 'wait' && letter === 'p');
    if (writes && attached !== '') {
      addWrite(reading, command, attached, `${name} -${letter}${attached}`, undefined, {
        scalar: letter !== 'a',
        number: printsNumber(name, rest.slice(j + 1)),
      });
      continue;
    }
    if (!value) continue;
    if (writes) {
      reading.names.push({ word: value, runner: `${name} -${letter}` });
      if (value.literal !== undefined)
        addWrite(reading, command, value.literal, `${name} -${letter} ${value.literal}`, undefined, {
          scalar: letter !== 'a',
          number: printsNumber(name, rest.slice(j + 1)),
        });
    }
    if ((name === 'mapfile' || name === 'readarray') && letter === 'C') reading.code.push({ word: value, runner: `${name} -C`, shell: 'same' });
  }
  if (DECLARATIONS.has(name)) return readDeclaration(reading, command, operands, name, flags);
  switch (name) {
    case 'eval':
      addJoinedCode(reading, operands, 'eval', 'same');
      break;
    case 'trap':
      if (operands.length >= 2 && operands[0]?.literal !== '-') reading.code.push({ word: operands[0] as ShellWord, runner: 'trap', shell: 'same' });
      break;
    case 'source':
    case '.':
      if (operands[0]) addProgramPath(reading, operands[0], name, 'same');
      break;
    case 'alias':
      for (const word of operands)
        reading.code.push({
          word,
          runner: 'alias',
          shell: 'same',
          ...(word.literal !== undefined ? { text: word.literal.slice(word.literal.indexOf('=') + 1) } : {}),
        });
      break;
    case 'let':
      for (const word of operands) reading.arithmetic.push({ word, kind: 'let' });
      break;
    case 'unset':
      if (!flags.includes('f')) for (const word of operands) reading.names.push({ word, runner: 'unset' });
      break;
    case 'read':
      for (const word of operands) {
        reading.names.push({ word, runner: 'read' });
        if (word.literal !== undefined) addWrite(reading, command, word.literal, `read ${word.literal}`, undefined, { scalar: true });
      }
      break;
    case 'mapfile':
    case 'readarray': {
      const target = operands[operands.length - 1];
      if (target) {
        reading.names.push({ word: target, runner: name });
        if (target.literal !== undefined) addWrite(reading, command, target.literal, `${name} ${target.literal}`, undefined, { scalar: false });
      }
      break;
    }
    case 'getopts':
      if (operands[1]) {
        reading.names.push({ word: operands[1], runner: 'getopts' });
        if (operands[1].literal !== undefined) addWrite(reading, command, operands[1].literal, `getopts … ${operands[1].literal}`, undefined, { scalar: true });
      }
      break;
    case 'test':
    case '[':
      operands.forEach((word, j) => {
        if ((word.literal === '-v' || word.literal === '-R') && operands[j + 1])
          reading.names.push({ word: operands[j + 1] as ShellWord, runner: `${name} -v` });
      });
      break;
  }
}

function readDeclaration(reading: CommandReading, command: SimpleCommand, operands: readonly ShellWord[], name: string, flags: string): void {
  if (/[fF]/.test(flags)) return; // function names
  const nameref = flags.includes('n') && name !== 'export';
  for (const word of operands) {
    const variable = word.assignment?.name ?? word.literal?.split('[')[0];
    if (word.assignment) {
      readAssignment(reading, command, word, name);
      const target = word.assignment.value;
      if (nameref && target) {
        // The target is a variable name: a computed one would let writes through the nameref land anywhere.
        reading.names.push({ word: target, runner: `${name} -n` });
        if (target.literal !== undefined) reading.namerefs.push(target.literal.split('[')[0] as string);
      }
    } else reading.names.push({ word, runner: name });
    if (variable === undefined) continue;
    if (flags.includes('i')) reading.integers.push(variable);
    if (nameref) reading.namerefs.push(variable);
  }
}
