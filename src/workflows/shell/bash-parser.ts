/**
 * A maintained bash parser: tree-sitter's bash grammar (`tree-sitter-bash`, run by
 * `web-tree-sitter` as WebAssembly), the one GitHub and editors read bash with. svc's own scanner
 * (scanner.ts) decides what the checks see; this parser is the second reader that says whether
 * the scanner read the script as bash does (parser-agreement.ts; docs/decisions.md, "Parse as bash
 * parses").
 *
 * Loaded only when a script takes values from outside (measured on Node 20: ≈ 25 ms and ≈ 13 MiB
 * once, then ≈ 0.05 ms a script; `npm run bench`). WebAssembly starts asynchronously and the
 * checks are synchronous, so the check asks for it (`parseBash` answers undefined until it is
 * loaded, and starts loading it), and what runs a script asks again once it is loaded (`checkedWhole`):
 * a script never runs on a check made without it.
 */

import { createRequire } from 'node:module';
import type { Parser, Tree } from 'web-tree-sitter';

const require = createRequire(import.meta.url);

let parser: Parser | undefined;
let loading: Promise<void> | undefined;

/** Loads the parser, once per process; resolves when it is ready. */
export function loadBashParser(): Promise<void> {
  loading ??= (async () => {
    const { Language, Parser } = await import('web-tree-sitter');
    // Its own WebAssembly named where it is installed: the code is bundled (scripts/bundle.mjs),
    // the .wasm files are read from the packages.
    await Parser.init({ locateFile: () => require.resolve('web-tree-sitter/tree-sitter.wasm') });
    const ready = new Parser();
    ready.setLanguage(await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm')));
    parser = ready;
  })().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

/** `script` as bash reads it, or undefined while the parser is not loaded yet (asking starts loading it); the caller deletes the tree. */
export function parseBash(script: string): Tree | undefined {
  if (!parser) {
    // Loaded for the next asker; a failure to load is seen by whoever awaits `loadBashParser`.
    loadBashParser().catch(() => undefined);
    return undefined;
  }
  const tree = parser.parse(script);
  if (!tree) throw new Error('the bash parser gave no tree');
  return tree;
}
