/**
 * A unified diff's lines by what they are, for front ends that colour a patch (the CLI on a
 * terminal, the dashboard): file headers, hunk headers, added, removed and context lines. Whether a
 * line is a header depends on where it is: a removed line `-- x` inside a hunk reads `--- x`, and
 * is content, not a file header. Pure: no git, no Node.
 */

export type PatchLineKind = 'header' | 'hunk' | 'added' | 'removed' | 'context';

export function patchLines(patch: string): Array<{ kind: PatchLineKind; text: string }> {
  let inHunk = false;
  const lines = patch.split('\n');
  // A patch ends with a newline: no line after it.
  if (lines.at(-1) === '') lines.pop();
  return lines.map((text) => {
    if (text.startsWith('diff --git ')) inHunk = false;
    else if (text.startsWith('@@')) {
      inHunk = true;
      return { kind: 'hunk', text };
    }
    if (!inHunk) return { kind: 'header', text };
    if (text.startsWith('+')) return { kind: 'added', text };
    if (text.startsWith('-')) return { kind: 'removed', text };
    return { kind: 'context', text };
  });
}
