/**
 * A bash node's sandbox: Anthropic's sandbox runtime (`@anthropic-ai/sandbox-runtime`, the engine
 * of Claude Code's own sandbox), not a jail of svc's making (docs/decisions.md, "Bash nodes in a
 * sandbox"). On Linux it runs the script under bubblewrap with the policy's mounts, and its network
 * through a proxy on the host (bridged by socat) that lets through only the hosts allowed.
 *
 * The runtime is one session per process (`SandboxManager`): started once, on the first sandboxed
 * command, with nothing allowed; each command brings its own files (`customConfig`) and its own
 * hosts, registered under an unguessable id that only its proxy credentials carry. Measured with
 * 0.0.83 on Node 20: the session ≈ 120 ms once (≈ 200 ms with loading the library), a command's wrap
 * ≈ 10–20 ms, a sandboxed `true` ≈ +36 ms in all (npm run bench, bench/RESULTS.md).
 */

import { randomBytes } from 'node:crypto';
import { shellQuote } from '../workflows/index.js';
import type { SandboxPolicy } from './policy.js';
import { findExecutable, probeBwrap, userNamespacesRefused } from './check.js';

type Runtime = (typeof import('@anthropic-ai/sandbox-runtime'))['SandboxManager'];

/** The executables the runtime needs on Linux, with what to install for each. */
const NEEDED = [
  ['bwrap', 'bubblewrap (bwrap)'],
  ['socat', 'socat'],
  // It scans the writable directories for files it write-protects (shell and git configuration).
  ['rg', 'ripgrep (rg)'],
] as const;

interface Tools {
  bwrap: string;
  socat: string;
  rg: string;
}

/** Why a bash node's sandbox cannot start on `path` (the PATH the node gets), naming what is missing; or the tools it uses. */
export async function commandSandboxTools(path: string | undefined, platform: NodeJS.Platform = process.platform): Promise<Tools | string> {
  if (platform !== 'linux') return `the bash sandbox is not supported on ${platform} by svc yet`;
  if (await userNamespacesRefused()) return 'the kernel refuses user namespaces (/proc/sys/user/max_user_namespaces is 0), which the sandbox needs';
  const found = await Promise.all(NEEDED.map(([name]) => findExecutable(name, path)));
  const missing = NEEDED.filter((_, index) => !found[index]).map(([, what]) => what);
  if (missing.length) return `the bash sandbox needs ${missing.join(' and ')} on PATH: install them (apt install bubblewrap socat ripgrep)`;
  const [bwrap, socat, rg] = found as [string, string, string];
  const refused = await probeBwrap(bwrap);
  if (refused) return `bubblewrap cannot create a sandbox here (user namespaces refused?): ${refused}`;
  return { bwrap, socat, rg };
}

let session: Promise<Runtime> | undefined;
/** Sandboxed commands wrapped and not yet finished: the session is not closed under them. */
let inFlight = 0;

/**
 * Ends the process's runtime session, if one was started and no command runs in it: its proxies
 * listen until then, and would keep a process that is done (`svc mcp`, `svc run`) from exiting.
 * Another sandboxed command later starts a new one.
 */
export async function closeCommandSandbox(): Promise<void> {
  const started = session;
  if (!started || inFlight > 0) return;
  session = undefined;
  const manager = await started.catch(() => undefined);
  await manager?.reset();
}

/** The process's runtime session, started on first use; a start that failed is tried again next time. */
function runtime(tools: Tools): Promise<Runtime> {
  session ??= (async () => {
    // Loaded only when a bash node asks for a sandbox: the CLI and most servers never need it.
    const { SandboxManager } = await import('@anthropic-ai/sandbox-runtime');
    await SandboxManager.initialize({
      network: { allowedDomains: [], deniedDomains: [] },
      filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
      ripgrep: { command: tools.rg },
      bwrapPath: tools.bwrap,
      socatPath: tools.socat,
    });
    return SandboxManager;
  })().catch((error: unknown) => {
    session = undefined;
    throw error;
  });
  return session;
}

export interface SandboxedCommand {
  /** The command line to give `bash -c`: the script inside the sandbox. */
  command: string;
  /**
   * Once the command has exited: its registration ends, the runtime's mount points go when no other
   * command needs them, and what the runtime refused (network) is returned as its own words, one
   * line each (`deny network-outbound HOST:PORT (…)`), for sandbox/denials.ts to read.
   */
  finish(): string[];
}

/**
 * `script` wrapped in the sandbox `policy` describes. Its TMPDIR is the node's own (the runtime
 * would hand it a shared `/tmp/claude`). `script` may also be `bash FILE` for a script too long for
 * one argument: the file must then be readable inside.
 */
export async function sandboxCommand(script: string, policy: SandboxPolicy, tmpDir: string, tools: Tools, signal?: AbortSignal): Promise<SandboxedCommand> {
  const manager = await runtime(tools);
  // At least 128 bits: the id is all that ties a proxied connection to this command's hosts.
  const commandId = randomBytes(16).toString('base64url');
  manager.registerCommandNetworkLists(commandId, { allowedDomains: [...policy.network] });
  let command: string;
  try {
    command = await manager.wrapWithSandbox(
      `export TMPDIR=${shellQuote(tmpDir)}\n${script}`,
      'bash',
      {
        filesystem: { denyRead: [...policy.denyRead], allowRead: [...policy.allowRead], allowWrite: [...policy.write], denyWrite: [] },
        ripgrep: { command: tools.rg },
        bwrapPath: tools.bwrap,
        socatPath: tools.socat,
      },
      signal,
      { commandId },
    );
  } catch (error) {
    manager.unregisterCommandNetworkLists(commandId);
    throw error;
  }
  let finished = false;
  inFlight += 1;
  return {
    command,
    finish() {
      if (finished) return [];
      finished = true;
      inFlight -= 1;
      manager.unregisterCommandNetworkLists(commandId);
      manager.cleanupAfterCommand();
      return manager
        .getSandboxViolationStore()
        .getViolationsForCommand(commandId)
        .map((violation) => violation.line);
    },
  };
}
