// `svc conversation …`, `svc chat` and `svc watch --conversation` as a user types them, against a
// running server with the fake agent, and `svc conversation send` with no server (in process).
import { afterEach, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { runSvc } from '../../src/cli/main.js';
import { testIO } from '../../src/cli/test-io.js';
import { api, cleanupAll, startServer, tempDir, FAKE_CLAUDE, waitFor } from '../helpers/runs.js';
import { runCli } from '../helpers/cli.js';
import { runSvcInProcess } from '../helpers/cli-in-process.js';
import { closedPort } from '../helpers/serve-process.js';

afterEach(cleanupAll);

describe('svc conversation', () => {
  it('creates, lists, shows, renames, sends and removes — through a server', async () => {
    const server = await startServer({ socket: true });
    const cli = (...args: string[]) => runSvcInProcess(['--url', server.url, ...args], { SVC_HOME: server.home });

    const created = await cli('conversation', 'new', '--title', 'first', '--json');
    expect(created.code, created.stderr).toBe(0);
    const conversation = JSON.parse(created.stdout);
    expect(conversation.title).toBe('first');

    const sent = await cli('conversation', 'send', conversation.id, 'hello', 'there');
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toBe('fake reply: hello there\n');
    const failed = await cli('conversation', 'send', conversation.id, 'oops [fake:fail]');
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('fake failure');

    expect((await cli('conversation', 'rename', conversation.id, 'new', 'title')).stdout).toMatch(/title\s+new title/);
    const listed = await cli('conversation', 'list');
    expect(listed.stdout).toContain(conversation.id);
    const shown = await cli('conversation', 'show', conversation.id);
    expect(shown.stdout).toContain('fake reply: hello there');
    expect(shown.stdout).toContain('agent_failed');

    expect((await cli('conversation', 'rm', conversation.id)).code).toBe(0);
    expect((await cli('conversation', 'list')).stdout).not.toContain(conversation.id);
    expect((await cli('conversation', 'list', '--all')).stdout).toContain(conversation.id);
    expect((await cli('conversation', 'send', conversation.id, 'more')).code).toBe(1);
    expect((await cli('conversation', 'show', 'conv_missing')).code).toBe(1);

    await server.json('PATCH', '/api/config/assistants', { claude: { baseUrl: 'http://127.0.0.1:8080', apiKeyEnv: 'LOCAL_MODEL_KEY' } });
    expect((await cli('config', 'show')).stdout).toMatch(/claude endpoint\s+http:\/\/127\.0\.0\.1:8080 \(key from \$LOCAL_MODEL_KEY\)/);
    expect((await cli('config', 'show')).stdout).toMatch(/claude permissions\s+read \(conversations\)/);
  });

  it('svc conversation new --permissions sets what its agent may do, and refuses anything but read, edit or full', async () => {
    const server = await startServer({ socket: true });
    const cli = (...args: string[]) => runSvcInProcess(['--url', server.url, ...args], { SVC_HOME: server.home });
    const editing = await cli('conversation', 'new', '--permissions', 'edit');
    expect(editing.code, editing.stderr).toBe(0);
    expect(editing.stdout).toMatch(/permissions\s+edit\n/);
    expect((await cli('conversation', 'new')).stdout).toMatch(/permissions\s+\(the assistant's configured\)\n/);
    const bad = await cli('conversation', 'new', '--permissions', 'write');
    expect(bad).toMatchObject({ code: 2, stderr: 'svc: --permissions is read, edit or full\n' });
  });

  it('svc chat reads one message per stdin line when piped and exits 1 after an agent failure', async () => {
    const server = await startServer({ socket: true });
    const cli = (args: string[], input: string) => runSvcInProcess(['--url', server.url, ...args], { SVC_HOME: server.home }, { input });
    const ok = await cli(['chat'], 'one\n\ntwo\n/help\n');
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('fake reply: one\nfake reply: two\n');
    expect(ok.stdout).toContain('/run <workflow> <text>');
    const id = /Conversation (\S+)/.exec(ok.stderr)![1]!;
    const again = await cli(['chat', id], 'three [fake:fail]\nfour\n');
    expect(again.code).toBe(1);
    expect(again.stdout).toContain('fake reply: four');
    const shown = await runSvcInProcess(['--url', server.url, 'conversation', 'show', id, '--json'], { SVC_HOME: server.home });
    expect(
      JSON.parse(shown.stdout)
        .messages.filter((m: { role: string }) => m.role === 'user')
        .map((m: { content: string }) => m.content),
    ).toEqual(['one', 'two', '/help', 'three [fake:fail]', 'four']);
  });

  it('svc watch --conversation shows messages as well as run events', async () => {
    const server = await startServer({ socket: true });
    const env = { SVC_HOME: server.home };
    const created = JSON.parse((await runSvcInProcess(['--url', server.url, 'conversation', 'new', '--json'], env)).stdout);
    // Watches live until stopped by the timeout; the message is sent once its stream is subscribed on the server's bus.
    const listeners = server.ctx.bus.listenerCount;
    const watching = runCli(['--url', server.url, 'watch', '--conversation', created.id], { env, timeoutMs: 4000 });
    await waitFor(
      () => server.ctx.bus.listenerCount > listeners,
      3_000,
      () => 'for svc watch to connect',
    );
    const sent = await runSvcInProcess(['--url', server.url, 'conversation', 'send', created.id, 'watch me'], env);
    expect(sent.code, sent.stderr).toBe(0);
    const watched = await watching;
    expect(watched.stdout).toMatch(/you\nwatch me\n/);
    expect(watched.stdout).toMatch(/assistant \(\$0\.0010\)\nfake reply: watch me\n/);
  });

  it('sends and answers in process when no server runs', async () => {
    const home = await tempDir('svc-cli-conv-');
    const env = { SVC_HOME: home, SVC_CLAUDE_BIN: FAKE_CLAUDE, PORT: String(await closedPort()) };
    const created = await runSvcInProcess(['conversation', 'new', '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    const id = JSON.parse(created.stdout).id;
    const sent = await runSvcInProcess(['conversation', 'send', id, 'offline'], env);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toBe('fake reply: offline\n');
  });
});

describe('svc chat on a terminal', () => {
  it('reads messages with a prompt, streams each reply, and leaves on Ctrl+C', async () => {
    const server = await startServer({ socket: true });
    const io = testIO({ env: { PATH: process.env.PATH, SVC_HOME: server.home }, tty: true, canPrompt: true });
    let screen = '';
    io.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString()));
    const stdin = io.stdin as PassThrough;
    const done = runSvc(['--url', server.url, 'chat'], io);
    const typed = async (text: string, until: () => boolean) => {
      for (const char of text) stdin.write(char);
      stdin.write('\r');
      await waitFor(until, 10_000, () => `screen: ${screen} out: ${io.stdoutText()}`);
    };
    await waitFor(
      () => screen.includes('you'),
      10_000,
      () => screen,
    );
    await typed('hello', () => io.stdoutText().includes('fake reply: hello\n'));
    await typed('/help', () => io.stdoutText().includes('/run <workflow> <text>'));
    stdin.write('\x03');
    expect(await done).toBe(0);
    expect(screen).toContain('Bye.');
    const id = /Conversation (\S+)/.exec(io.stderrText())![1]!;
    const { body } = await api(server, 'GET', `/api/conversations/${id}/messages`);
    expect(body.messages.map((m: { content: string }) => m.content)).toEqual(['hello', 'fake reply: hello', '/help', expect.stringContaining('Commands:')]);
  });
});
