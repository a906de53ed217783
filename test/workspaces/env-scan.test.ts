import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scanEnvFiles } from '../../src/workspaces/env-scan.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-envscan-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the env-leak scan', () => {
  it('finds agent keys in .env and .env.* at the root, with or without export, quoted or not', async () => {
    await writeFile(join(dir, '.env'), 'PORT=3000\nexport ANTHROPIC_API_KEY="sk-ant-canary"\n# OPENAI_API_KEY=commented\n');
    await writeFile(join(dir, '.env.local'), "OPENAI_API_KEY='sk-canary'\nGEMINI_API_KEY=abc # inline\n");
    await writeFile(join(dir, '.env.empty'), 'CODEX_API_KEY=\nCLAUDE_API_KEY=""\n');
    await mkdir(join(dir, 'sub'));
    await writeFile(join(dir, 'sub', '.env'), 'CLAUDE_CODE_OAUTH_TOKEN=x\n');
    const scan = await scanEnvFiles(dir);
    expect(scan).toEqual({
      status: 'keys_found',
      files: ['.env', '.env.empty', '.env.local'],
      keys: ['ANTHROPIC_API_KEY', 'GEMINI_API_KEY', 'OPENAI_API_KEY'],
      unreadable: [],
    });
    expect(JSON.stringify(scan)).not.toContain('canary');
  });

  it('is clean without env files or agent keys', async () => {
    expect((await scanEnvFiles(dir)).status).toBe('clean');
    await writeFile(join(dir, '.env'), 'DATABASE_URL=postgres://x\n');
    expect(await scanEnvFiles(dir)).toEqual({ status: 'clean', files: ['.env'], keys: [], unreadable: [] });
  });

  it('reports files it cannot read (a dangling link, a FIFO that would block) as unreadable, never as matches', async () => {
    await symlink(join(dir, 'missing'), join(dir, '.env.link'));
    execFileSync('mkfifo', [join(dir, '.env.fifo')]);
    await mkdir(join(dir, '.env.d'));
    await writeFile(join(dir, '.env'), 'OTHER=1\n');
    expect(await scanEnvFiles(dir)).toEqual({
      status: 'unreadable',
      files: ['.env', '.env.fifo', '.env.link'],
      keys: [],
      unreadable: ['.env.fifo', '.env.link'],
    });
  });

  it('reports a file too large to be a dotenv file as unreadable', async () => {
    await writeFile(join(dir, '.env'), `${'A=1\n'.repeat(300_000)}ANTHROPIC_API_KEY=x\n`);
    expect(await scanEnvFiles(dir)).toEqual({ status: 'unreadable', files: ['.env'], keys: [], unreadable: ['.env'] });
  });
});

describe('the env-leak scan on a large file', () => {
  it('scans a 20 MiB .env without a newline as unreadable, without reading it whole', async () => {
    await writeFile(join(dir, '.env.big'), Buffer.alloc(20 * 1024 * 1024, 0x41));
    await writeFile(join(dir, '.env'), 'OPENAI_API_KEY=sk\n');
    expect(await scanEnvFiles(dir)).toEqual({ status: 'keys_found', files: ['.env', '.env.big'], keys: ['OPENAI_API_KEY'], unreadable: ['.env.big'] });
  });
});
