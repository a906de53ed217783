// Runs only the engine benchmarks and prints their rows (after `npm run build`):
//   node bench/engine-standalone.mjs [section...] [--details]
// Sections: spawn, long-chain, events, sse (default: all). bench/run.mjs prints the same rows
// with the other benchmarks in one table.
import { benchEngine, SECTIONS } from './engine.mjs';

const args = process.argv.slice(2);
const only = args.filter((a) => !a.startsWith('--'));
const unknown = only.filter((s) => !SECTIONS.includes(s));
if (unknown.length) {
  console.error(`unknown section ${unknown.join(', ')}; use ${SECTIONS.join(', ')}`);
  process.exit(2);
}
const started = Date.now();
const rows = await benchEngine({ only: only.length ? only : undefined, details: args.includes('--details') });
console.table(
  rows.map(({ name, value, unit, reference, ratio, target, error }) => ({ name, value, unit, reference, ratio, target, ...(error ? { error } : {}) })),
);
if (rows.details && Object.keys(rows.details).length) console.log(JSON.stringify(rows.details, null, 2));
console.log(`engine bench: ${((Date.now() - started) / 1000).toFixed(1)} s`);
if (rows.some((row) => row.error)) process.exitCode = 1;
