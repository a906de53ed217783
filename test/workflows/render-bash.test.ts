// renderBash output is run through a real `bash -c`: the proof that an output arrives verbatim and
// that nothing in it executes is what bash does with it, not what the string looks like.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderBash, shellQuote, type RenderedBash } from '../../src/workflows/references.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-render-bash-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Runs what renderBash made as the engine does: its script, with the outputs in the environment. */
function bash(rendered: RenderedBash, env: Record<string, string> = {}): string {
  const script = rendered.script;
  // stdin ignored and --norc: bash takes a socket on stdin (how Node connects pipes) for a remote
  // shell and would read ~/.bashrc, whose noise is not what these tests are about.
  const result = spawnSync('bash', ['--norc', '--noprofile', '-c', script], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', ...rendered.values, ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return result.stdout;
}

/** Outputs that would run commands (each creates a file named `pwned*` in the cwd) if spliced badly. */
const HOSTILE: Record<string, string> = {
  quote: "it's a 'quoted' \"value\"",
  subst: '$(touch pwned-subst)',
  backtick: '`touch pwned-backtick`',
  semicolon: "'; touch pwned-semicolon; echo '",
  newline: 'first line\ntouch pwned-newline\n',
  doubleBreak: '"; touch pwned-dq; echo "',
  backslash: "\\'; touch pwned-bs; echo \\",
  expansion: '$HOME ${PATH} $((1+1)) !! * ?',
  heredocLike: 'EOF\ntouch pwned-heredoc\nEOF',
  empty: '',
  unicode: 'naïve — ✓ \t tab',
  dashes: '-n -e --help',
};

function expectNothingRan(): void {
  expect(readdirSync(dir).filter((name) => name.startsWith('pwned'))).toEqual([]);
}

describe('renderBash', () => {
  it('puts no byte of any output into the script: each reference is an expansion of a variable holding it', () => {
    const script = 'printf %s $quote.output "$subst.output" \'$semicolon.output\'; v=$newline.output';
    const rendered = renderBash(script, HOSTILE);
    for (const id of ['quote', 'subst', 'semicolon', 'newline']) expect(rendered.script).not.toContain(HOSTILE[id]);
    expect(rendered.script).toBe('printf %s "${SVC_OUTPUT_quote}" "${SVC_OUTPUT_subst}" \'\'"${SVC_OUTPUT_semicolon}"\'\'; v="${SVC_OUTPUT_newline}"');
    expect(rendered.values).toEqual({
      SVC_OUTPUT_quote: HOSTILE.quote,
      SVC_OUTPUT_subst: HOSTILE.subst,
      SVC_OUTPUT_semicolon: HOSTILE.semicolon,
      SVC_OUTPUT_newline: HOSTILE.newline,
    });
    expect(bash(rendered)).toBe(`${HOSTILE.quote}${HOSTILE.subst}${HOSTILE.semicolon}`);
    expectNothingRan();
  });

  it('names two ids that meet in one variable name apart', () => {
    const rendered = renderBash('printf "%s|" $a-b.output $a_b.output', { 'a-b': 'dash', a_b: 'under' });
    expect(Object.keys(rendered.values).sort()).toEqual(['SVC_OUTPUT_a_b', 'SVC_OUTPUT_a_b_2']);
    expect(bash(rendered)).toBe('dash|under|');
  });

  it.each(Object.keys(HOSTILE))('passes the %s output verbatim as one word', (id) => {
    const value = HOSTILE[id] as string;
    const script = renderBash(`printf '%s|' $${id}.output; printf 'words=%d' "$(set -- $${id}.output; echo $#)"`, HOSTILE);
    expect(bash(script)).toBe(`${value}|words=1`);
    expectNothingRan();
  });

  it('keeps the value verbatim inside double quotes', () => {
    for (const [id, value] of Object.entries(HOSTILE)) {
      expect(bash(renderBash(`printf '%s' "<$${id}.output>"`, HOSTILE))).toBe(`<${value}>`);
    }
    expectNothingRan();
  });

  it('keeps the value verbatim inside single quotes', () => {
    for (const [id, value] of Object.entries(HOSTILE)) {
      expect(bash(renderBash(`printf '%s' '<$${id}.output>'`, HOSTILE))).toBe(`<${value}>`);
    }
    expectNothingRan();
  });

  it('works inside $(…), in assignments and in pipelines', () => {
    const script = renderBash('v=$subst.output; echo "$(printf %s $quote.output)"; printf %s "$v" | tr a-z A-Z', HOSTILE);
    expect(bash(script)).toBe(`${HOSTILE.quote}\n${(HOSTILE.subst as string).toUpperCase()}`);
    expectNothingRan();
  });

  it('leaves everything but $<id>.output alone: $ARGUMENTS reaches the script from the environment', () => {
    const args = '$(touch pwned-args) `touch pwned-args2`; rm -rf /';
    const script = renderBash('printf "%s|" "$ARGUMENTS" "$RUN_ID" "${USER_MESSAGE}"', HOSTILE);
    expect(script.script).toBe('printf "%s|" "$ARGUMENTS" "$RUN_ID" "${USER_MESSAGE}"');
    expect(bash(script, { ARGUMENTS: args, RUN_ID: 'r1', USER_MESSAGE: args })).toBe(`${args}|r1|${args}|`);
    expectNothingRan();
  });

  it('does not expand references inside a substituted value', () => {
    expect(bash(renderBash('printf %s $a.output', { a: '$b.output', b: 'nope' }))).toBe('$b.output');
  });

  it('leaves references in comments and escaped references as written', () => {
    const script = '# was $newline.output\nprintf %s \\$a.output';
    expect(renderBash(script, HOSTILE).script).toBe(script);
    expect(bash(renderBash(script, HOSTILE))).toBe('$a.output');
    expectNothingRan();
  });

  it('reads `#` after an escaped space as part of the word, as bash does', () => {
    // svc took `\ #` for the start of a comment and left the reference alone, while bash went on
    // reading the word: a backtick opened there enclosed the next lines' splices.
    expect(bash(renderBash('printf %s a\\ #$a.output', { a: 'v' }))).toBe('a #v');
    expect(() => renderBash('echo a\\ #`\necho $subst.output\n`', HOSTILE)).toThrow('inside backticks');
    expectNothingRan();
  });

  it('reads a node without output as an empty word, not a missing one', () => {
    expect(bash(renderBash('set -- $skipped.output; echo $#', {}))).toBe('1\n');
  });

  it('refuses contexts where no splice is safe', () => {
    expect(() => renderBash('cat <<EOF\n$a.output\nEOF', { a: 'x' })).toThrow(
      "$a.output cannot be substituted safely inside a here-document; pipe it instead: printf '%s\\n' $a.output | …",
    );
    expect(() => renderBash('echo `echo $a.output`', { a: 'x' })).toThrow('inside backticks');
    expect(() => renderBash('echo "${x:-$a.output}"', { a: 'x' })).toThrow('inside ${…}');
    expect(() => renderBash('(( $a.output > 0 ))', { a: 'x' })).toThrow('cannot be used in arithmetic');
    expect(() => renderBash('echo $[ $a.output ]', { a: 'x' })).toThrow('cannot be used in arithmetic');
    expect(() => renderBash('bash -c "echo $a.output"', { a: 'x' })).toThrow('bash -c runs');
  });

  it('drops NUL bytes, which bash cannot carry', () => {
    expect(shellQuote('a\0b')).toBe("'ab'");
    expect(bash(renderBash('printf %s $a.output', { a: 'a\0b' }))).toBe('ab');
  });
});
