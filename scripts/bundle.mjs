#!/usr/bin/env node
// The second half of `npm run build` (after tsc): replaces `dist/runtime.js` with an esbuild bundle
// of `src/runtime.ts` and everything it imports — our domain and server, zod, yaml, lowdb, h3,
// listhen. On Node 20 (no compile cache) loading a few large files is much faster than loading
// hundreds of small ESM modules; see docs/ARCHITECTURE.md, "Start-up cost".
//
// The input is the TypeScript source, not tsc's `dist/runtime.js`, so running this twice gives the
// same result (tsc has type-checked the same files just before). Dynamic imports become chunks in
// `dist/chunks/`: the listener and the h3 app (listhen, h3, srvx) load only for `svc serve`, the SSE
// writer only when a server opens a stream (offline commands call the routes, streams included,
// through server/dispatch.ts without h3), and listhen's optional extras (jiti, crossws, untun…)
// never load at all.
//
// Everything else in dist/ stays tsc's per-file output: the CLI entry, tests and benches use it.
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../', import.meta.url));
const dist = join(root, 'dist');
const chunks = join(dist, 'chunks');

if (!existsSync(join(dist, 'cli', 'main.js'))) {
  process.stderr.write('bundle: dist/ is missing; run `npm run build` (tsc first, then this).\n');
  process.exit(1);
}

// Chunk names carry content hashes: drop the previous build's, or they pile up.
rmSync(chunks, { recursive: true, force: true });

// listhen imports node-forge (~600 KiB of CommonJS that sets itself up as it loads), consola and uqr
// at its top, for what svc never asks of it: HTTPS certificates, a coloured banner, a QR code. They
// were ~25 ms and ~10 MiB of every `svc serve` start. listhen gets stand-ins instead, which require
// the real package — left out of the bundle, installed beside listhen as its dependency — the first
// time one of its members is used (docs/decisions.md, "listhen loads lazily"; test/cli/serve-footprint.test.ts
// holds that none of them loads). Each lists what listhen imports of it: an object, or a function.
const LISTHEN_EXTRAS = {
  'node-forge': { default: 'object' },
  consola: { default: 'object', consola: 'object' },
  'consola/utils': { colors: 'object', getColor: 'function' },
  uqr: { renderUnicodeCompact: 'function' },
};

function standIn(name, members) {
  const lines = [
    "import { createRequire } from 'node:module';",
    'let real;',
    // Resolved from listhen, whose dependency it is, wherever npm placed it.
    `const load = () => (real ??= createRequire(require.resolve('listhen'))(${JSON.stringify(name)}));`,
    'const member = (key) => (key === "default" ? (load().default ?? load()) : load()[key]);',
  ];
  for (const [key, kind] of Object.entries(members)) {
    const value =
      kind === 'function'
        ? `(...args) => member(${JSON.stringify(key)})(...args)`
        : `new Proxy({}, { get: (_target, inner) => member(${JSON.stringify(key)})[inner], has: (_target, inner) => inner in member(${JSON.stringify(key)}) })`;
    lines.push(key === 'default' ? `export default ${value};` : `export const ${key} = ${value};`);
  }
  return lines.join('\n');
}

const lazyListhenExtras = {
  name: 'lazy-listhen-extras',
  setup(build) {
    const names = Object.keys(LISTHEN_EXTRAS).map((name) => name.replace(/[/.-]/g, '\\$&'));
    build.onResolve({ filter: new RegExp(`^(${names.join('|')})$`) }, (args) =>
      /[\\/]node_modules[\\/]listhen[\\/]/.test(args.importer) ? { path: args.path, namespace: 'listhen-extra' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'listhen-extra' }, (args) => ({
      contents: standIn(args.path, LISTHEN_EXTRAS[args.path]),
      loader: 'js',
      resolveDir: root,
    }));
  },
};

const result = await build({
  absWorkingDir: root,
  entryPoints: { runtime: 'src/runtime.ts' },
  outdir: dist,
  chunkNames: 'chunks/[name]-[hash]',
  tsconfig: 'tsconfig.build.json',
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // One dependency is external: the sandbox runtime finds its own files (the seccomp filters, a Java
  // agent) beside its modules, so it is loaded from node_modules, and only when a bash node asks for a
  // sandbox. web-tree-sitter is bundled and told where its tree-sitter.wasm is installed
  // (src/workflows/shell/bash-parser.ts). Every other dependency bundles cleanly (listhen's extras above are required at run time).
  // An import esbuild cannot resolve is left in place only where the dependency guards it (listhen's
  // `import('@parcel/watcher')`, optional and not installed, falls back to the bundled wasm build;
  // neither runs without `--watch`).
  external: ['@anthropic-ai/sandbox-runtime'],
  plugins: [lazyListhenExtras],
  // yaml and node-forge (via listhen) are CommonJS; inside an ES module their `require` of Node
  // built-ins needs a real `require`. Every output file is its own module, so each gets one.
  banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module';\nconst require = __svcCreateRequire(import.meta.url);" },
  sourcemap: true,
  sourcesContent: false,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
});

if (result.errors.length > 0) process.exit(1);

const outputs = Object.entries(result.metafile.outputs).filter(([file]) => file.endsWith('.js'));
const size = (file) => statSync(join(root, file)).size;
const total = outputs.reduce((sum, [file]) => sum + size(file), 0);
const entry = join(dist, 'runtime.js');
if (!readFileSync(entry, 'utf8').includes('__svcCreateRequire')) {
  process.stderr.write('bundle: dist/runtime.js was not replaced by the bundle.\n');
  process.exit(1);
}
process.stderr.write(`bundle: dist/runtime.js + ${outputs.length - 1} chunks, ${(total / 1024 / 1024).toFixed(1)} MiB (${relative(root, chunks)}/)\n`);
