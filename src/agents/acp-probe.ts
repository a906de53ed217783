import { mkdir } from 'node:fs/promises';
import { Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { presetLaunch, type AcpPreset } from '../config/index.js';
import { spawnGroup, type GroupProcess } from '../processes/index.js';
import { stdoutStream } from './acp-process.js';
import { packageVersion } from '../shared/version.js';

/** What `svc doctor` tells of one acp assistant's command. */
export interface AcpProbe {
  /** The executable answered `--version`: its first line; null when it did not. */
  version: string | null;
  /** `initialize` answered: the agent's name and version as it gave them, and its protocol version. */
  initialize: { ok: true; agent: string; protocolVersion: number } | { ok: false; error: string };
}

const PROBE_TIMEOUT_MS = 20_000;
const VERSION_TIMEOUT_MS = 10_000;
/** More than any version line: the rest of a command that prints on and on is not kept. */
const VERSION_OUTPUT_MAX = 64 * 1024;

/**
 * `terminate()` waits on unref'd timers (it must not hold a finished CLI open); the doctor is a CLI
 * with nothing else pending, so it holds itself open until the group is gone.
 */
async function stopGroup(proc: GroupProcess): Promise<void> {
  const hold = setInterval(() => {}, 1000);
  await proc.terminate().finally(() => clearInterval(hold));
}

/**
 * The command's `--version`, its flags left out (`gemini --version`, `node <agent script> --version`):
 * as a process group with no input, stopped whole after 10 s — a command that does not know the
 * flag may start its agent and wait, and what it started must not outlive the doctor.
 */
async function versionOf(bin: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<string | null> {
  const proc = spawnGroup(bin, [...args.filter((arg) => !arg.startsWith('-')), '--version'], { cwd, env });
  let stdout = '';
  proc.child.stdout!.on('data', (chunk: Buffer) => {
    if (stdout.length < VERSION_OUTPUT_MAX) stdout += chunk.toString();
  });
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    proc.done.then(
      ({ code }) => code,
      () => null,
    ),
    new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), VERSION_TIMEOUT_MS))),
  ]);
  clearTimeout(timer);
  await stopGroup(proc);
  const line = stdout.trim().split('\n')[0];
  return outcome === 0 && line ? line.slice(0, 200) : null;
}

/**
 * Whether an acp assistant's command is there and speaks ACP (`svc doctor`): its `--version`, then
 * one `initialize` over its stdio with the SDK, in its own directory under svc's home (`home`),
 * after which its process group is stopped. Nothing else is asked: no session, no model call.
 */
export async function probeAcpAgent(
  assistant: { command: string[]; preset?: AcpPreset | null | undefined },
  server: NodeJS.ProcessEnv,
  home: string,
): Promise<AcpProbe> {
  const [bin, ...args] = assistant.command;
  // Started as svc starts it, less the model and the endpoint: its preset's switches and directory.
  const { env: presetEnv } = presetLaunch(assistant.preset, { model: null, baseUrl: null, key: undefined, keyEnv: null, home });
  const env = { ...server, ...presetEnv };
  const cwd = home;
  await mkdir(home, { recursive: true });
  const version = await versionOf(bin!, args, env, cwd);
  const proc = spawnGroup(bin!, args, { cwd, env, stdin: { open: true } });
  const connection = acp.client({ name: 'svc' }).connect(acp.ndJsonStream(Writable.toWeb(proc.child.stdin!) as WritableStream<Uint8Array>, stdoutStream(proc)));
  let timer: NodeJS.Timeout | undefined;
  const failed = (why: string): AcpProbe => ({ version, initialize: { ok: false, error: why } });
  try {
    const answered = await Promise.race([
      connection.agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: {},
        clientInfo: { name: 'svc', version: packageVersion() },
      }),
      proc.done.then(({ code, signal }) => Promise.reject(new Error(`it exited (${code ?? signal}) without answering`))),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${PROBE_TIMEOUT_MS / 1000} s`)), PROBE_TIMEOUT_MS))),
    ]);
    const info = answered.agentInfo;
    return { version, initialize: { ok: true, agent: info ? `${info.name} ${info.version}` : 'an unnamed agent', protocolVersion: answered.protocolVersion } };
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    return failed(code === 'ENOENT' ? `'${bin}' was not found` : (error as Error).message);
  } finally {
    clearTimeout(timer);
    connection.close();
    await stopGroup(proc);
  }
}
