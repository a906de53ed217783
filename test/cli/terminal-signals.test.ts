// Issue 32, "the CLI hangs on a terminal that reports 0 columns": on such a pty (script, some CI and
// container ptys) `svc run` spun writing cursor moves after its run completed and ignored SIGTERM.
// A width of 0 or unknown gets plain lines, and SIGTERM or SIGINT ends the CLI within 3 s (the
// bound the issue names). Real pseudo-terminals through util-linux `script`, the built CLI, a real
// `svc serve` on an ephemeral port.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { killAllPtys, spawnOnPty, type PtyCli } from '../helpers/pty.js';
import { closedPort, killAllServes, spawnCli, spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { waitFor } from '../helpers/runs.js';
import { makeHome } from '../helpers/server.js';
import { makeProject, type Project } from '../helpers/workflow-project.js';

const ESC = '\u001b';
/** What a spinner draws with: cursor up, erase line, hide cursor. Plain lines have none of them. */
const CURSOR_MOVES = [`${ESC}[1A`, `${ESC}[0K`, `${ESC}[2K`, `${ESC}[?25l`];
/** The bound for SIGTERM (and Ctrl-C) to end any CLI command. */
const PROMPT_EXIT_MS = 3000;
/** Without colours (a terminal gets them, and they are not what is checked here). */
const uncoloured = (text: string) => text.replace(new RegExp(`${ESC}\\[[0-9;]*m`, 'g'), '');

let project: Project;
let serve: ServeProcess;
let serveHome: string;

beforeAll(async () => {
  project = await makeProject();
  await project.write(
    'quick.yaml',
    `name: quick
description: two bash nodes, one after the other
nodes:
  - id: nap
    bash: sleep 1; echo rested
  - id: after
    bash: echo after
    depends_on: [nap]
`,
  );
  await project.write(
    'slow.yaml',
    `name: slow
description: one bash node that outlasts the test
nodes:
  - id: hold
    bash: sleep 60
`,
  );
  serveHome = await makeHome();
  serve = await spawnServe({ home: serveHome });
});

afterEach(killAllPtys);
afterAll(async () => {
  await killAllServes();
  await project.remove();
});

const onServer = () => ({ SVC_HOME: serveHome, SVC_URL: serve.url });
const offline = async () => ({ SVC_HOME: await makeHome(), PORT: String(await closedPort()) });

/** Signals the svc process on the pty once `ready` shows, and measures how long it takes to end. */
async function signalAndTime(cli: PtyCli, ready: string, signal: NodeJS.Signals): Promise<{ ms: number; code: number | null }> {
  await waitFor(
    () => cli.output().includes(ready),
    20_000,
    () => `for '${ready}'; output: ${JSON.stringify(cli.output())}`,
  );
  const pid = await cli.pid();
  const sent = performance.now();
  process.kill(pid, signal);
  // Not ended well past the bound: hung (afterEach kills it), and the assertion on `ms` says so.
  const code = await Promise.race([cli.exited, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 4 * PROMPT_EXIT_MS))]);
  return { ms: performance.now() - sent, code: code === 'hung' ? null : code };
}

/** The run a following CLI printed (`run <id> of <workflow> created`), cancelled so nothing outlives the test. */
async function cancelPrintedRun(output: string): Promise<void> {
  const id = /run (run_\w+) of/.exec(output)?.[1];
  if (id) await runCli(['cancel', id], { env: onServer() });
}

describe('on a terminal that reports 0 columns', () => {
  for (const mode of ['a server', 'no server'] as const) {
    it(`svc run with ${mode} writes plain lines and ends with its run`, async () => {
      const cli = spawnOnPty(['run', 'quick'], { env: mode === 'a server' ? onServer() : await offline(), cwd: project.dir, columns: 0 });
      // A hung CLI is killed by afterEach; its output says what it was doing.
      const code = await Promise.race([cli.exited, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 30_000))]);
      expect(code, cli.output().slice(0, 2000)).toBe(0);
      const output = cli.output();
      for (const line of ['nap started\r\n', 'after started\r\n', 'completed quick run_']) expect(uncoloured(output)).toContain(line);
      for (const move of CURSOR_MOVES) expect(output).not.toContain(move);
    }, 40_000);
  }
});

describe('SIGTERM and SIGINT end svc run promptly', () => {
  // 0 columns: the terminal of the issue; 80: a spinner is drawing when the signal comes.
  for (const [columns, ready] of [
    [0, 'hold started'],
    [80, 'running hold'],
  ] as const) {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      it(`${signal} on a terminal of ${columns} columns, following a run on a server`, async () => {
        const cli = spawnOnPty(['run', 'slow'], { env: onServer(), cwd: project.dir, columns });
        const { ms } = await signalAndTime(cli, ready, signal);
        await cancelPrintedRun(cli.output());
        expect(ms).toBeLessThan(PROMPT_EXIT_MS);
      }, 40_000);
    }
  }

  it('SIGTERM with no server: the run in this process is cancelled (exit 3), within the bound', async () => {
    const cli = spawnOnPty(['run', 'slow'], { env: await offline(), cwd: project.dir, columns: 80 });
    const { ms, code } = await signalAndTime(cli, 'running hold', 'SIGTERM');
    expect(code).toBe(3);
    expect(cli.output()).toContain('cancelling the run');
    expect(ms).toBeLessThan(PROMPT_EXIT_MS);
  }, 40_000);
});

describe('SIGTERM ends svc watch promptly', () => {
  it('svc watch --all, piped', async () => {
    const watch = spawnCli(['watch', '--all'], onServer(), project.dir);
    // The watch is connected once a run's events reach it.
    const started = await runCli(['run', 'quick', '--detach'], { env: onServer(), cwd: project.dir });
    expect(started.code, started.stderr).toBe(0);
    await waitFor(
      () => watch.stdout().includes('run_completed'),
      20_000,
      () => `for the watch to see the run; stdout: ${watch.stdout()}`,
    );
    const sent = performance.now();
    process.kill(watch.pid, 'SIGTERM');
    await watch.done;
    expect(performance.now() - sent).toBeLessThan(PROMPT_EXIT_MS);
  }, 40_000);
});
