// Issue 32, "a `/run` started from `svc chat` never prints its outcome live": the chat follows the
// run it started to its outcome, with `svc run`'s lines. The built CLI against a real `svc serve` on
// an ephemeral port (the fake agent answers plain messages); piped, one message per stdin line, and
// on a real pseudo-terminal (util-linux `script`) where the prompt stays open while the run goes on.
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { killAllPtys, spawnOnPty } from '../helpers/pty.js';
import { FAKE_CLAUDE, api, waitFor } from '../helpers/runs.js';
import { killAllServes, spawnServe, type ServeProcess } from '../helpers/serve-process.js';
import { makeHome } from '../helpers/server.js';
import { makeProject, type Project } from '../helpers/workflow-project.js';

let project: Project;
let serve: ServeProcess;
let home: string;

beforeAll(async () => {
  project = await makeProject();
  await project.write('build.yaml', 'name: build\ndescription: build\nnodes:\n  - id: compile\n    bash: echo compiled\n');
  await project.write(
    'broken.yaml',
    "name: broken\ndescription: broken\nnodes:\n  - id: boom\n    bash: |\n      echo 'first of the log'\n      echo 'the reason it broke' >&2\n      exit 3\n",
  );
  await project.write('gated.yaml', "name: gated\ndescription: gated\nnodes:\n  - id: ship\n    approval:\n      message: 'ship it?'\n");
  // Held by a file the test removes: the run is still going when the terminal's prompt opens again.
  await project.write('held.yaml', 'name: held\ndescription: held\nnodes:\n  - id: hold\n    bash: while [ -e hold ]; do sleep 0.1; done; echo released\n');
  home = await makeHome();
  // Project workflows are found under the server's cwd.
  serve = await spawnServe({ home, cwd: project.dir, env: { SVC_CLAUDE_BIN: FAKE_CLAUDE } });
});

afterEach(killAllPtys);
afterAll(async () => {
  await killAllServes();
  await project.remove();
});

const env = () => ({ SVC_HOME: home, SVC_URL: serve.url });

/** Said when a chat was killed at its time limit: what its conversation holds, to see where it stood. */
async function stalled(chat: { code: number | null; stdout: string; stderr: string }): Promise<string> {
  const id = /Conversation (\S+)/.exec(chat.stderr)?.[1];
  const messages = id ? (await api({ url: serve.url }, 'GET', `/api/conversations/${id}/messages`)).body : null;
  return `chat killed; stdout: ${JSON.stringify(chat.stdout)}; messages: ${JSON.stringify(messages)}`;
}

describe('svc chat, piped, with /run', () => {
  it("prints a run's outcome before the next line is answered: completed, then failed with the node's last lines", async () => {
    const chat = await runCli(['chat'], { env: env(), input: '/run build now\n/run broken please\nafter the runs\n', timeoutMs: 40_000 });
    if (chat.code === null) expect.fail(await stalled(chat));
    const out = chat.stdout;
    // The run's own lines, as `svc run` prints them piped, each after the reply that started it.
    expect(out).toMatch(/Started run (run_\w+) of workflow 'build'[^\n]*\n(?:.*\n)*?✔ compile .*\ncompleted build \1/);
    expect(out).toMatch(/Started run (run_\w+) of workflow 'broken'[^\n]*\n(?:.*\n)*?✖ boom .*\n(?:.*\n)*?.*the reason it broke\n(?:.*\n)*?failed broken \1/);
    // In order: each outcome is printed before the next line is answered.
    expect(out.indexOf('completed build')).toBeLessThan(out.indexOf("workflow 'broken'"));
    expect(out.indexOf('failed broken')).toBeLessThan(out.indexOf('fake reply: after the runs'));
    // A failed run fails the script, as an agent failure does.
    expect(chat.code, chat.stderr).toBe(1);
  }, 60_000);

  it('a run paused at a gate says so, with how to approve it, and the chat goes on (exit 0)', async () => {
    const chat = await runCli(['chat'], { env: env(), input: '/run gated go\nnext\n', timeoutMs: 40_000 });
    if (chat.code === null) expect.fail(await stalled(chat));
    expect(chat.code, chat.stderr).toBe(0);
    const runId = /Started run (run_\w+)/.exec(chat.stdout)![1]!;
    expect(chat.stdout).toContain(`paused at ship: ship it?\n  approve: svc approve ${runId}`);
    expect(chat.stdout.indexOf(`paused gated ${runId}`)).toBeLessThan(chat.stdout.indexOf('fake reply: next'));
    await api({ url: serve.url }, 'POST', `/api/workflows/runs/${runId}/cancel`);
  }, 60_000);
});

describe('svc chat on a terminal, with /run', () => {
  it("prints the run's outcome when it comes, while the prompt stays usable", async () => {
    await writeFile(join(project.dir, 'hold'), '');
    const cli = spawnOnPty(['chat'], { env: env(), cwd: project.dir, columns: 120, rows: 40, input: true });
    const screen = () => cli.output().replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
    const until = (text: string) =>
      waitFor(
        () => screen().includes(text),
        30_000,
        () => `for '${text}'; screen: ${JSON.stringify(screen().slice(-2000))}`,
      );
    /** The prompt opened again since `marker` showed: keys typed before it are the terminal's, cooked. */
    const promptAfter = (marker: string) =>
      waitFor(
        () => screen().slice(screen().lastIndexOf(marker)).includes('◆  you'),
        30_000,
        () => `for the prompt after '${marker}'; screen: ${JSON.stringify(screen().slice(-2000))}`,
      );
    await until('you');
    cli.type('/run held now\r');
    const runId = (await waitFor(() => /Started run (run_\w+)/.exec(screen())?.[1], 30_000, screen))!;
    // The prompt is open again while the run is held: a message is answered meanwhile. Typed once
    // the run's first lines are out, so they do not close the prompt under the keys.
    await promptAfter(`${runId} of held created`);
    await promptAfter('hold started');
    cli.type('still here\r');
    await until('fake reply: still here');
    await promptAfter('fake reply: still here');
    // Something typed but not sent when the outcome comes is kept in the prompt opened again.
    cli.type('half');
    await rm(join(project.dir, 'hold'));
    await until(`completed held ${runId}`);
    cli.type(' done\r');
    await until('fake reply: half done');
    await promptAfter('fake reply: half done');
    cli.type('\u0003');
    // A chat that does not leave is killed by afterEach; the screen says where it stood.
    const code = await Promise.race([cli.exited, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 15_000))]);
    expect(code, JSON.stringify(screen().slice(-1500))).toBe(0);
  }, 60_000);
});
