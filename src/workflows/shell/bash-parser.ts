/**
 * A maintained bash parser: tree-sitter's bash grammar (`tree-sitter-bash`, run by
 * `web-tree-sitter` as WebAssembly), the one GitHub and editors read bash with. svc's own scanner
 * (scanner.ts) decides what the checks see; this parser is the second reader that says whether
 * the scanner read the script as bash does (parser-agreement.ts; docs/decisions.md, "Parse as bash
 * parses"). Loaded once, when the module is first imported (measured on Node 20: ≈ 20 ms to start,
 * ≈ 13 ms for the first script, well under 1 ms for the next): WebAssembly starts asynchronously,
 * and the checks that use it are synchronous.
 */

import { createRequire } from 'node:module';
import { Language, Parser, type Tree } from 'web-tree-sitter';

const require = createRequire(import.meta.url);

await Parser.init();
const parser = new Parser();
parser.setLanguage(await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm')));

/** `script` as bash reads it; the caller deletes the tree when done with it. */
export function parseBash(script: string): Tree {
  const tree = parser.parse(script);
  if (!tree) throw new Error('the bash parser gave no tree');
  return tree;
}
