import { spawn } from 'node:child_process';
import { expect, it } from 'vitest';
import { SVC_BIN } from '../helpers/cli.js';
import { svcEnv } from '../helpers/serve-process.js';
import { makeHome } from '../helpers/server.js';

/** `svc openapi | head -1`: the reader closing the pipe early is not a crash. */
it('exits 0 quietly when stdout is closed early', async () => {
  const child = spawn(process.execPath, [SVC_BIN, 'openapi'], { env: svcEnv({ SVC_HOME: await makeHome() }), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.once('data', () => child.stdout.destroy());
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  expect(code).toBe(0);
  expect(stderr).not.toMatch(/EPIPE|Error/);
});
