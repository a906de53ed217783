// "Subcommands load lazily (`svc --help` must stay near bare node start-up)": checked on what is
// loaded, not on time. Only commander may come from node_modules for --version, --help and the
// commands that need no heavy dependency; h3, listhen, zod, lowdb, yaml… wait for the commands that use them.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { closedPort } from '../helpers/serve-process.js';
import { packagesOf, TRACER, traced } from '../helpers/trace.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-lazy-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Packages (from node_modules) that `svc <args>` loads, and every module URL it resolves. */
async function packagesLoadedBy(args: string[]): Promise<{ code: number | null; packages: string[]; urls: string[] }> {
  const result = await runCli(args, { env: { SVC_HOME: join(dir, 'home'), PORT: String(await closedPort()), NODE_OPTIONS: `--import ${TRACER}` } });
  const urls = traced(result.stderr, 'import');
  expect(urls.length, result.stderr).toBeGreaterThan(0);
  return { code: result.code, packages: packagesOf(urls), urls };
}

describe('lazy loading', () => {
  it.each([[['--version']], [['--help']], [['help', 'exit-codes']], [['completion', 'bash']]])('svc %j loads nothing but commander', async (args) => {
    const { code, packages, urls } = await packagesLoadedBy(args);
    expect(code).toBe(0);
    expect(packages).toEqual(['commander']);
    expect(urls.filter((url) => /\/dist\/(runtime\.js|chunks\/)/.test(url))).toEqual([]);
  });

  it('svc status loads no server, store or schema library', async () => {
    const { code, packages, urls } = await packagesLoadedBy(['status']);
    expect(code).toBe(5);
    for (const heavy of ['h3', 'listhen', 'zod', 'lowdb', 'yaml', 'ora', '@clack/prompts', 'cli-table3', 'chalk']) expect(packages).not.toContain(heavy);
    // Built, those live inside the runtime bundle (scripts/bundle.mjs), which status must not load either.
    expect(urls.filter((url) => /\/dist\/(runtime\.js|chunks\/)/.test(url))).toEqual([]);
  });
});
