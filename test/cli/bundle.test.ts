// The built CLI loads its heavy runtime (store, domain, server; zod, yaml, lowdb, h3, listhen) from
// the esbuild bundle `dist/runtime.js` that `npm run build` makes (scripts/bundle.mjs), not from
// hundreds of small modules. These tests run the built CLI, so they check the bundle itself: that
// commands go through it, that it finds the package's files from its own depth in dist/, and that
// its errors (its own copies of our classes) are still reported as such.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPackageRoot, packageRoot, packageVersion } from '../../src/shared/version.js';
import { runCli } from '../helpers/cli.js';
import { closedPort, killAllServes, spawnServe } from '../helpers/serve-process.js';
import { packageOf, packagesOf, TRACER, traced } from '../helpers/trace.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-bundle-'));
});
afterAll(async () => {
  await killAllServes();
  await rm(dir, { recursive: true, force: true });
});

const offlineEnv = async (home: string) => ({ SVC_HOME: home, PORT: String(await closedPort()) });

/** What `svc <args>` loads: packages from node_modules, and our own files under dist/. */
async function loadedBy(args: string[], env: Record<string, string>) {
  const result = await runCli(args, { env: { ...env, NODE_OPTIONS: `--import ${TRACER}` } });
  const urls = traced(result.stderr, 'import');
  const ours = new Set<string>();
  for (const url of urls) {
    const own = /\/dist\/(.+)$/.exec(url);
    if (own && packageOf(url) === undefined) ours.add(own[1]!);
  }
  return { result, packages: packagesOf(urls), ours: [...ours] };
}

describe('the runtime bundle', () => {
  it('the build replaced dist/runtime.js with the bundle and its chunks', async () => {
    const entry = await readFile(join(ROOT, 'dist', 'runtime.js'), 'utf8');
    expect(entry).toMatch(/from ["']\.\/chunks\/chunk-[\w-]+\.js["']/);
    expect(entry).not.toMatch(/from ["']\.\/app\/context\.js["']/);
  });

  it.each(['runs', 'config show', 'workflow list'])(
    'offline `svc %s` reads the store through the bundle: no package but commander from node_modules',
    async (command) => {
      const args = command.split(' ');
      const home = join(dir, `home-${args.join('-')}`);
      const { result, packages, ours } = await loadedBy(args, await offlineEnv(home));
      expect(result.code, result.stderr).toBe(0);
      expect(packages).toEqual(['commander']);
      expect(ours).toContain('runtime.js');
      expect(ours.filter((file) => /^(app|engine\/engine|store\/index|catalog\/catalog|server)\b/.test(file))).toEqual([]);
      // The server half is a chunk of its own that reading the store does not load.
      expect(ours.filter((file) => /^chunks\/listen-/.test(file))).toEqual([]);
    },
  );

  it('`svc workflow validate` and `svc openapi` use the bundle too', async () => {
    for (const args of [['workflow', 'validate', join(ROOT, 'bundled', 'workflows')], ['openapi']]) {
      const { result, packages, ours } = await loadedBy(args, await offlineEnv(join(dir, 'home-tools')));
      expect(result.code, result.stderr).toBe(0);
      expect(packages).toEqual(['commander']);
      expect(ours).toContain('runtime.js');
    }
  });

  it('finds package.json and bundled/ from inside dist/: the version and the bundled workflows', async () => {
    const env = await offlineEnv(join(dir, 'home-paths'));
    const config = await runCli(['config', 'show', '--json'], { env });
    expect(config.code, config.stderr).toBe(0);
    expect(JSON.parse(config.stdout).version).toBe(packageVersion());

    const listing = await runCli(['workflow', 'list', '--json', '--cwd', dir], { env });
    expect(listing.code, listing.stderr).toBe(0);
    const bundled = JSON.parse(listing.stdout).workflows.filter((w: { source: string }) => w.source === 'bundled');
    expect(bundled.length).toBeGreaterThan(0);
    for (const w of bundled) expect(w.filename.startsWith(join(ROOT, 'bundled', 'workflows') + '/')).toBe(true);
  });

  it('a server started from the bundle reports the package version', async () => {
    const serve = await spawnServe({ home: join(dir, 'home-serve') });
    const health = (await (await fetch(`${serve.url}/api/health`)).json()) as { version: string };
    expect(health.version).toBe(packageVersion());
    await serve.stop();
  });

  it("the bundle's domain errors are reported as such offline, not as unexpected errors", async () => {
    const env = await offlineEnv(join(dir, 'home-errors'));
    const run = await runCli(['runs', 'show', 'no-such-run'], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^svc: /);
    expect(run.stderr).not.toContain('unexpected error');

    const workflow = await runCli(['workflow', 'show', 'no-such-workflow', '--cwd', dir], { env });
    expect(workflow.code).toBe(1);
    expect(workflow.stderr).toMatch(/^svc: /);
    expect(workflow.stderr).not.toContain('unexpected error');
  });
});

describe("listhen's extras in the bundle", () => {
  // scripts/bundle.mjs leaves node-forge, consola and uqr out and gives listhen stand-ins that
  // require them on first use: svc never does, but listhen must still work when it does.
  it('load when listhen uses them: an HTTPS listener makes its certificate (node-forge) and prints its URL (consola)', async () => {
    const chunks = join(ROOT, 'dist', 'chunks');
    const names = await readdir(chunks);
    const texts = await Promise.all(names.map(async (name) => [name, await readFile(join(chunks, name), 'utf8')] as const));
    const listhenChunk = texts.find(([name, text]) => name.endsWith('.js') && text.includes('listhen-extra:node-forge'));
    expect(listhenChunk, 'the chunk holding listhen').toBeDefined();
    // Nothing of the real packages is bundled.
    expect(texts.some(([, text]) => /\/\/ node_modules\/(node-forge|consola|uqr)\//.test(text))).toBe(false);

    const { listen } = (await import(join(chunks, listhenChunk![0]))) as {
      listen(
        handler: (req: unknown, res: { end(body: string): void }) => void,
        options: object,
      ): Promise<{ url: string; close(): Promise<void>; showURL(): Promise<void> }>;
    };
    const listener = await listen((_req, res) => res.end('ok'), {
      port: 0,
      hostname: '127.0.0.1',
      https: true,
      showURL: false,
      public: false,
      autoClose: false,
    });
    try {
      expect(listener.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/$/);
      const body = await new Promise<string>((resolve, reject) => {
        const req = httpsRequest(listener.url, { rejectUnauthorized: false }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve(text));
        });
        req.on('error', reject);
        req.end();
      });
      expect(body).toBe('ok');
      const printed: string[] = [];
      const log = console.log;
      console.log = (...args: unknown[]) => void printed.push(args.join(' '));
      try {
        await listener.showURL();
      } finally {
        console.log = log;
      }
      expect(printed.join('\n')).toContain(listener.url.replace(/\/$/, ''));
    } finally {
      await listener.close();
    }
  });
});

describe('findPackageRoot', () => {
  it('is the checkout from src/shared/ (unbundled, as under vitest)', () => {
    expect(packageRoot).toBe(ROOT);
    expect(findPackageRoot(join(ROOT, 'src', 'shared'))).toEqual({ root: ROOT, version: packageVersion() });
  });

  it('walks up any number of levels, past package.json files of other packages', async () => {
    const root = join(dir, 'pkg');
    const deep = join(root, 'dist', 'chunks', 'node_modules', 'other', 'lib');
    await mkdir(deep, { recursive: true });
    await writeFile(join(root, 'package.json'), JSON.stringify({ name: 'svc-orchestrator', version: '9.8.7' }));
    await writeFile(join(root, 'dist', 'chunks', 'node_modules', 'other', 'package.json'), JSON.stringify({ name: 'other', version: '1.0.0' }));
    await writeFile(join(root, 'dist', 'package.json'), '{ not json');
    expect(findPackageRoot(join(root, 'dist'))).toEqual({ root, version: '9.8.7' });
    expect(findPackageRoot(deep)).toEqual({ root, version: '9.8.7' });
  });

  it('fails clearly when there is no svc package above', () => {
    expect(() => findPackageRoot(dir)).toThrow(/no package\.json named "svc-orchestrator"/);
  });
});
