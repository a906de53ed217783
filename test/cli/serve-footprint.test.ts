// Issue 22, "a smaller footprint": what `svc serve` on the file store loads before its first answer.
// Nothing that only the PostgreSQL store (pg), the dashboard, tracing (the OpenTelemetry SDK, issue
// 33, without an OTLP endpoint) or a convenience we do not use needs may load at start-up. Checked on what is loaded — the source maps of the bundle chunks the
// process imports name every file inside them — not on time (timing belongs in `npm run bench`).
import { readFile, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeHome } from '../helpers/server.js';
import { killAllServes, spawnServe } from '../helpers/serve-process.js';
import { packagesOf, TRACER, traced } from '../helpers/trace.js';

let home: string;
beforeAll(async () => {
  home = await makeHome();
});
afterAll(async () => {
  await killAllServes();
  await rm(home, { recursive: true, force: true });
});

/** Every source file inside the bundle chunks `urls` name, from each chunk's source map. */
async function sourcesOf(urls: string[]): Promise<string[]> {
  const sources: string[] = [];
  for (const url of urls) {
    const map = JSON.parse(await readFile(fileURLToPath(`${url}.map`), 'utf8')) as { sources: string[] };
    sources.push(...map.sources);
  }
  return sources;
}

describe('svc serve on the file store', () => {
  it('loads no PostgreSQL driver, dashboard code, zod locale, OpenTelemetry module or node-forge before answering /api/health', async () => {
    // Tracing off, whatever the machine running the tests says.
    const serve = await spawnServe({
      home,
      nodeArgs: ['--import', TRACER],
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: undefined, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined },
    });
    expect((await fetch(`${serve.url}/api/health`)).status).toBe(200);
    expect(await serve.stop()).toEqual({ code: 0, signal: null });

    const urls = traced(serve.stderr(), 'import');
    const chunks = urls.filter((url) => /\/dist\/(runtime\.js|chunks\/[^/]+\.js)$/.test(url));
    expect(chunks.length, serve.stderr()).toBeGreaterThan(0);
    const sources = await sourcesOf(chunks);
    // The bundle itself is loaded: the test looks at the right files.
    expect(sources.some((source) => source.includes('src/app/context.ts'))).toBe(true);
    // zod's English messages are its default; the PostgreSQL error class is what `svc serve` tells
    // apart when a database does not answer (a few lines, no driver).
    const unwanted = new Set(
      sources.filter(
        (source) =>
          /node_modules\/(pg|pg-[\w-]+|pgpass|postgres-[\w-]+|node-forge|@opentelemetry\/[\w-]+)\/|\/src\/((web|store\/postgres)\/|tracing\/otel-)/.test(
            source,
          ) ||
          (/node_modules\/zod\/v4\/locales\//.test(source) && !source.endsWith('/en.js')),
      ),
    );
    unwanted.delete('../../src/store/postgres/errors.ts');
    expect([...unwanted]).toEqual([]);
    // Nothing but the CLI's own modules and commander outside the bundle.
    expect(packagesOf(urls)).toEqual(['commander']);
    // listhen's node-forge (HTTPS certificates svc never asks for) is left out of the bundle and
    // required only on first use: never, by a server on plain HTTP (scripts/bundle.mjs).
    const required = traced(serve.stderr(), 'require');
    expect(required.length, serve.stderr()).toBeGreaterThan(0);
    expect(packagesOf(required)).toEqual(['commander']);
  });
});
