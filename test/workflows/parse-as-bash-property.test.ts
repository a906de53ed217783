// What the check accepts, bash reads the same way (issue 31; docs/decisions.md, "Parse as bash
// parses"): a property test over generated scripts. Each script strings together constructs that
// have misled readers of bash — comments and arrays with quotes in them, here-documents of every
// kind (inside $(…) too), line continuations, nested quoting, backticks, compound commands — with
// `echo T<n>` commands that run, `echo N<n>` in branches that do not, and `echo D<n>` decoys in
// text, which is no command at all. For every script the check accepts, the commands bash really
// runs (its `set -x` trace) are exactly the commands tree-sitter's reading finds outside branches
// not taken, and the decoys are neither run nor read as commands: the check's policy rests on that
// reading.
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { loadBashParser } from '../../src/workflows/shell/bash-parser.js';
import { outsideValueProblems } from '../../src/workflows/shell/index.js';
import { parseScript } from '../../src/workflows/shell/parser-agreement.js';

beforeAll(() => loadBashParser());

/** A construct, given a fresh number for what it runs (`T`), holds as code it does not run (`N`), and holds only as text (`D`). */
type Construct = (n: number) => string;

const CONSTRUCTS: readonly Construct[] = [
  (n) => `echo T${n}`,
  (n) => `echo T${n} 'a b' "c \\"d\\"" \\$e >/dev/null`,
  (n) => `# it's a "comment" with echo D${n}\necho T${n}`,
  (n) => `cat <<EOF >/dev/null\necho D${n} $HOME 'x\nEOF\necho T${n}`,
  (n) => `cat <<'EOF' >/dev/null\necho D${n} $(x) "y\nEOF\necho T${n}`,
  (n) => `cat <<"END" >/dev/null\necho D${n}\nEND\necho T${n}`,
  (n) => `cat <<-EOF >/dev/null\n\techo D${n}\n\tEOF\necho T${n}`,
  (n) => `x=$(cat <<EOF\necho D${n}\nEOF\n)\necho T${n}`,
  (n) => `x=$(echo T${n})`,
  (n) => `x=\`echo T${n}\``,
  (n) => `echo \\\n  T${n}`,
  (n) => `{ echo T${n}; }`,
  (n) => `( echo T${n} )`,
  (n) => `if true; then echo T${n}; fi`,
  (n) => `for _ in 1; do echo T${n}; done`,
  (n) => `case x in x) echo T${n};; y) echo N${n};; esac`,
  (n) => `true && echo T${n}`,
  (n) => `false || echo T${n}`,
  (n) => `echo T${n} | cat >/dev/null`,
  (n) => `echo 'echo D${n}' >/dev/null; echo T${n}`,
  (n) => `echo "a $(echo T${n}) b" >/dev/null`,
  (n) => `echo 'it'"'"'s echo D${n}' >/dev/null; echo T${n}`,
  (n) => `echo $'it\\'s echo D${n}' >/dev/null; echo T${n}`,
  (n) => `v="$(printf '%s' "$ARGUMENTS")"; echo T${n}`,
  (n) => `printf '%s\\n' "$ARGUMENTS" >/dev/null # ' "\necho T${n}`,
  (n) => `f${n}() { echo T${n}; }\nf${n}`,
  (n) => `while false; do echo N${n}; done; echo T${n}`,
  // Forms readers have got wrong (the check refuses those it cannot be sure of): from here on.
  (n) => `arr=(a # don't\n  b "c'd" 'e"f')\necho T${n}`,
  (n) => `x=$(cat <<EOF\necho D${n}\nEOF)\necho T${n}`,
  (n) => `cat <<$'EOF' >/dev/null\necho D${n}\nEOF\necho T${n}`,
  (n) => `cat <<E\\\nOF >/dev/null\necho D${n}\nEOF\necho T${n}`,
  (n) => `((echo T${n}) )`,
];

/** Where the forms readers have got wrong begin in CONSTRUCTS. */
const MISREAD_FROM = CONSTRUCTS.findIndex((construct) => construct(0).startsWith('arr=(a # don'));

const script = fc.array(fc.tuple(fc.nat({ max: CONSTRUCTS.length - 1 }), fc.constantFrom('\n', '; ', '\n\n')), { minLength: 1, maxLength: 8 }).map((parts) => {
  // Every script takes a value from outside, so the check reads it whole.
  let text = 'printf %s "$ARGUMENTS" >/dev/null\n';
  parts.forEach(([k, separator], n) => {
    const construct = (CONSTRUCTS[k] as Construct)(n + 1);
    // A construct that ends in a here-document or a comment needs its newline.
    text += construct + (/\n[^\n]*EOF$|END$/.test(construct) ? '\n' : separator);
  });
  return { text, misreadForms: parts.some(([k]) => k >= MISREAD_FROM) };
});

/** The `echo T<n>`, `N<n>`, `D<n>` commands bash ran, from its trace. */
function ranByBash(text: string): string[] {
  const result = spawnSync('bash', ['--norc', '--noprofile', '-c', `set -x\n${text}`], {
    env: { PATH: process.env.PATH ?? '', ARGUMENTS: 'x', PS4: '+ ', HOME: '/nonexistent' },
    encoding: 'utf8',
    timeout: 5000,
  });
  return [...result.stderr.matchAll(/^\++ echo ([TDN][0-9]+)(?: |$)/gm)].map((match) => match[1] as string).sort();
}

/** The `echo T<n>`, `N<n>`, `D<n>` commands the parser found. */
function readByParser(text: string): string[] {
  const tree = parseScript(text);
  if (!tree) throw new Error('the bash parser is not loaded');
  try {
    return tree.rootNode
      .descendantsOfType('command')
      .filter((node) => node?.childForFieldName('name')?.text === 'echo')
      .map((node) => node?.childForFieldName('argument')?.text ?? '')
      .filter((word) => /^[TDN][0-9]+$/.test(word))
      .sort();
  } finally {
    tree.delete();
  }
}

it('for every generated script the check accepts, bash runs exactly the commands the parser reads, and none of the decoys', () => {
  fc.assert(
    fc.property(script, ({ text, misreadForms }) => {
      const accepted = outsideValueProblems(text).length === 0;
      // The property says something only about scripts the check accepts: it accepts every one
      // made of the forms bash and the parser read alike.
      if (!misreadForms) expect(accepted, text).toBe(true);
      if (!accepted) return;
      const ran = ranByBash(text);
      const read = readByParser(text);
      expect(
        ran.filter((token) => !token.startsWith('T')),
        text,
      ).toEqual([]);
      expect(
        read.filter((token) => token.startsWith('D')),
        text,
      ).toEqual([]);
      expect(
        read.filter((token) => token.startsWith('T')),
        text,
      ).toEqual(ran);
    }),
    { numRuns: 300 },
  );
});
