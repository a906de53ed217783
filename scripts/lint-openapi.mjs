#!/usr/bin/env node
// `npm run lint:openapi [file]`: runs Redocly's `recommended` rules over the OpenAPI document —
// the one the BUILT server serves (run `npm run build` first), or a saved one given as a path
// (e.g. `svc openapi > api.json`). Prints every problem; exits 1 when there is an error.
// The same check runs in test/server/openapi.test.ts. Redocly is a dev dependency and takes
// ~270 ms to load, so it is never imported by svc itself.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createConfig, lintFromString } from '@redocly/openapi-core';

const root = fileURLToPath(new URL('../', import.meta.url));

async function readDocument(path) {
  if (path) return { source: readFileSync(path, 'utf8'), absoluteRef: resolve(path) };
  const runtime = `${root}dist/runtime.js`;
  if (!existsSync(runtime)) {
    process.stderr.write('lint-openapi: dist/ is missing; run `npm run build` first (or pass a file).\n');
    process.exit(1);
  }
  const { openApiDocument } = await import(pathToFileURL(runtime).href);
  const { version } = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
  return { source: JSON.stringify(await openApiDocument(version), null, 2), absoluteRef: `${root}openapi.json` };
}

const { source, absoluteRef } = await readDocument(process.argv[2]);
const problems = await lintFromString({ source, absoluteRef, config: await createConfig({ extends: ['recommended'] }) });
for (const problem of problems) {
  process.stdout.write(`${problem.severity}\t${problem.ruleId}\t${problem.message}\t${problem.location[0]?.pointer ?? ''}\n`);
}
const errors = problems.filter((problem) => problem.severity === 'error').length;
process.stdout.write(`openapi: ${errors} error(s), ${problems.length - errors} warning(s)\n`);
process.exitCode = errors > 0 ? 1 : 0;
