#!/usr/bin/env node
// The third part of `npm run build`: the dashboard (src/web) as static files in `dist/web/` —
// `index.html`, one content-hashed script and one style sheet — served by `svc serve` at `/`
// (src/server/web-assets.ts). Built at install time, so the page works offline, from no CDN.
//
// A budget keeps it small: the build fails when the shipped files pass WEB_BUDGET_KIB.
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const WEB_BUDGET_KIB = 300;

const root = fileURLToPath(new URL('../', import.meta.url));
const out = join(root, 'dist', 'web');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const result = await build({
  absWorkingDir: root,
  entryPoints: { app: 'src/web/main.tsx' },
  outdir: out,
  entryNames: '[name]-[hash]',
  tsconfig: 'src/web/tsconfig.json',
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome111', 'firefox111', 'safari16.4'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  minify: true,
  // The client's Node-side SSE reader: the browser follows streams with its own EventSource
  // (client/fetch-transport.ts), so this import is never taken there.
  external: ['eventsource'],
  define: { 'process.env.NODE_ENV': '"production"' },
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
});
if (result.errors.length > 0) process.exit(1);

const files = Object.keys(result.metafile.outputs).map((file) => basename(file));
const script = files.find((file) => file.endsWith('.js'));
const style = files.find((file) => file.endsWith('.css'));
if (!script || !style) {
  process.stderr.write(`build-web: expected one script and one style sheet, got ${files.join(', ')}\n`);
  process.exit(1);
}
const page = readFileSync(join(root, 'src', 'web', 'index.html'), 'utf8')
  .replace('%SCRIPT%', script)
  .replace('%STYLE%', style);
writeFileSync(join(out, 'index.html'), page);

const total = [script, style, 'index.html'].reduce((sum, file) => sum + statSync(join(out, file)).size, 0);
process.stderr.write(`build-web: dist/web/ ${script}, ${style}: ${(total / 1024).toFixed(0)} KiB\n`);
if (total > WEB_BUDGET_KIB * 1024) {
  process.stderr.write(`build-web: the dashboard is over its budget of ${WEB_BUDGET_KIB} KiB.\n`);
  process.exit(1);
}
