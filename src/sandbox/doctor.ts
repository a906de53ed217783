/**
 * `svc doctor`: whether this machine can run agents and bash nodes in their sandbox, one check a
 * line, each with what it found and, when something is missing, what to do. It checks what svc
 * checks before an agent or a sandboxed bash node starts (and with the same functions), so the two
 * cannot disagree: bubblewrap, socat and ripgrep on PATH, user namespaces (the kernel's limit, then
 * one bubblewrap sandbox), each agent CLI with `sandboxUnavailable`, and bash nodes with
 * `commandSandboxTools`. A local check of this machine: no store, no server.
 */

import { execFile } from 'node:child_process';
import { findExecutable, probeBwrap, sandboxUnavailable, userNamespacesRefused } from './check.js';
import { commandSandboxTools } from './command-sandbox.js';

/** `ok`: there and working; `missing`: absent or refused (see `fix`); `off`: switched off (`SVC_SANDBOX=off`). */
export type DoctorStatus = 'ok' | 'missing' | 'off';

export interface DoctorCheck {
  /** `sandbox`, `bubblewrap`, `socat`, `ripgrep`, `user namespaces`, `platform`, `claude`, `codex`, `bash nodes`. */
  name: string;
  status: DoctorStatus;
  /** What was found (a path and version, a reason). */
  found: string;
  /** When missing: exactly what to do. */
  fix?: string;
  /** Whether sandboxed agents or bash nodes need this check to pass (an agent CLI that is not installed is not needed). */
  needed: boolean;
  /** The Debian/Ubuntu package that fixes it, when one does. */
  package?: string;
}

export interface DoctorReport {
  platform: NodeJS.Platform;
  /** `SVC_SANDBOX`. */
  sandbox: 'on' | 'off';
  /** Every needed check passes, or `SVC_SANDBOX=off` (agents and bash nodes then run unconfined). */
  ready: boolean;
  /** Agents at read and edit can start: the needed checks but the bash nodes' own (`ripgrep`, `bash nodes`) pass, or `SVC_SANDBOX=off`. */
  agentsReady: boolean;
  /** Bash nodes with a sandbox can start (the `bash nodes` check), or `SVC_SANDBOX=off`. */
  bashReady: boolean;
  checks: DoctorCheck[];
  /** One command installing every missing package (Debian/Ubuntu), when any is missing. */
  install?: string;
}

export interface DoctorInput {
  /** The PATH agents get (the server's). */
  path: string | undefined;
  platform?: NodeJS.Platform;
  sandbox: 'on' | 'off';
  claudeBin: string;
  codexBin: string;
}

/** The first line of what `file args` prints (stdout, else stderr) matching `pattern`, or undefined. */
function versionOf(file: string, args: string[], pattern: RegExp): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 5_000 }, (_error, stdout, stderr) => {
      const line = `${String(stdout)}\n${String(stderr)}`.split('\n').find((l) => pattern.test(l));
      resolve(line?.match(pattern)?.[1]);
    });
  });
}

async function toolCheck(
  name: string,
  program: string,
  pkg: string,
  why: string,
  path: string | undefined,
  versionArgs: string[],
  pattern: RegExp,
): Promise<DoctorCheck> {
  const at = await findExecutable(program, path);
  if (!at)
    return { name, status: 'missing', found: `no ${program} on PATH`, fix: `sudo apt-get install ${pkg} (Debian/Ubuntu): ${why}`, needed: true, package: pkg };
  const version = await versionOf(at, versionArgs, pattern);
  return { name, status: 'ok', found: version ? `${at} (${pkg} ${version})` : at, needed: true };
}

async function userNamespacesCheck(path: string | undefined): Promise<DoctorCheck> {
  const name = 'user namespaces';
  if (await userNamespacesRefused())
    return {
      name,
      status: 'missing',
      found: 'the kernel refuses them (/proc/sys/user/max_user_namespaces is 0)',
      fix: 'sudo sysctl -w user.max_user_namespaces=15000 (and put it in /etc/sysctl.d/ to keep it)',
      needed: true,
    };
  const bwrap = await findExecutable('bwrap', path);
  if (!bwrap) return { name, status: 'ok', found: 'allowed by the kernel (not tried: no bwrap on PATH)', needed: true };
  const refused = await probeBwrap(bwrap);
  if (refused)
    return {
      name,
      status: 'missing',
      found: `bubblewrap cannot create a sandbox: ${refused}`,
      fix: 'allow unprivileged user namespaces: on Ubuntu 23.10+ `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` (or an AppArmor profile for bwrap); in a container, run it with user namespaces allowed',
      needed: true,
    };
  return { name, status: 'ok', found: 'bubblewrap made a sandbox (--unshare-net)', needed: true };
}

const AGENTS = [
  { agent: 'claude', env: 'SVC_CLAUDE_BIN', install: 'npm install -g @anthropic-ai/claude-code' },
  { agent: 'codex', env: 'SVC_CODEX_BIN', install: 'npm install -g @openai/codex' },
] as const;

async function agentCheck(spec: (typeof AGENTS)[number], bin: string, input: DoctorInput, platform: NodeJS.Platform): Promise<DoctorCheck> {
  const at = await findExecutable(bin, input.path);
  if (!at)
    return {
      name: spec.agent,
      status: 'missing',
      found: `${bin} not found (${spec.env}=${bin}); not needed unless a workflow uses ${spec.agent}`,
      fix: `${spec.install}, or set ${spec.env} to its executable`,
      needed: false,
    };
  if (input.sandbox === 'off') return { name: spec.agent, status: 'off', found: `${at}; runs unconfined (SVC_SANDBOX=off)`, needed: false };
  const unavailable = await sandboxUnavailable({ agent: spec.agent, path: input.path, platform });
  if (unavailable)
    return { name: spec.agent, status: 'missing', found: `${at}; its sandbox cannot start: ${unavailable}`, fix: 'fix the checks above', needed: true };
  return { name: spec.agent, status: 'ok', found: `${at}; its sandbox can start here`, needed: true };
}

/**
 * Bash nodes given a sandbox (`sandbox: true`, every one under `SVC_SANDBOX_BASH=1`, and those of a
 * run with values from outside — a webhook's — by default): the check made before such a node runs.
 * Needed whenever the sandbox is on, since a webhook's run needs it without anyone asking; but only
 * on Linux, where installing something fixes it: elsewhere svc has no bash sandbox yet, and the
 * agents' readiness does not hang on it.
 */
async function bashCheck(input: DoctorInput, platform: NodeJS.Platform): Promise<DoctorCheck> {
  const name = 'bash nodes';
  if (input.sandbox === 'off') return { name, status: 'off', found: 'bash nodes given a sandbox run unconfined (SVC_SANDBOX=off)', needed: false };
  const tools = await commandSandboxTools(input.path, platform);
  if (typeof tools !== 'string')
    return { name, status: 'ok', found: "their sandbox can start here (sandbox: true, SVC_SANDBOX_BASH=1, a webhook's runs)", needed: true };
  const linux = platform === 'linux';
  return {
    name,
    status: 'missing',
    found: `their sandbox cannot start (sandbox: true, SVC_SANDBOX_BASH=1, a webhook's runs fail sandbox_unavailable): ${tools}`,
    fix: linux ? 'fix the checks above' : 'run workflows whose bash nodes need a sandbox on Linux, or give such a node sandbox: false',
    needed: linux,
  };
}

/** The bash nodes' own checks: the agents can run without them. */
const BASH_ONLY = new Set(['ripgrep', 'bash nodes']);

/** Every check, in order: the setting, the system's pieces, each agent CLI, then bash nodes. */
export async function sandboxDoctor(input: DoctorInput): Promise<DoctorReport> {
  const platform = input.platform ?? process.platform;
  const checks: DoctorCheck[] = [
    input.sandbox === 'off'
      ? {
          name: 'sandbox',
          status: 'off',
          found: 'SVC_SANDBOX=off: agents at read and edit, and bash nodes given a sandbox, run unconfined (every such node says so)',
          fix: 'unset SVC_SANDBOX once the checks below pass',
          needed: false,
        }
      : {
          name: 'sandbox',
          status: 'ok',
          found: 'on: agents at read and edit, and bash nodes given a sandbox, run in it, or their node fails sandbox_unavailable',
          needed: false,
        },
  ];
  if (platform === 'linux') {
    checks.push(
      await toolCheck(
        'bubblewrap',
        'bwrap',
        'bubblewrap',
        "Claude Code's and bash nodes' sandbox need bwrap on PATH",
        input.path,
        ['--version'],
        /^bubblewrap\s+(\S+)/,
      ),
      await toolCheck(
        'socat',
        'socat',
        'socat',
        "Claude Code's and bash nodes' sandbox proxy their network through socat",
        input.path,
        ['-V'],
        /socat version\s+(\S+)/,
      ),
      await toolCheck(
        'ripgrep',
        'rg',
        'ripgrep',
        "a bash node's sandbox looks for the files it write-protects (shell and git configuration) with rg",
        input.path,
        ['--version'],
        /^ripgrep\s+(\S+)/,
      ),
      await userNamespacesCheck(input.path),
    );
  } else if (platform === 'darwin') {
    checks.push({
      name: 'platform',
      status: 'ok',
      found: 'macOS: Claude Code and Codex sandbox with Seatbelt (sandbox-exec); no bubblewrap or socat needed',
      needed: true,
    });
  } else {
    checks.push({
      name: 'platform',
      status: 'missing',
      found: `agent sandboxes are not supported on ${platform}`,
      fix: 'run svc on Linux or macOS, or set SVC_SANDBOX=off to run agents unconfined',
      needed: true,
    });
  }
  for (const spec of AGENTS) checks.push(await agentCheck(spec, spec.agent === 'claude' ? input.claudeBin : input.codexBin, input, platform));
  const bash = await bashCheck(input, platform);
  checks.push(bash);
  const off = input.sandbox === 'off';
  if (off) for (const check of checks) check.needed = false;
  const passes = (check: DoctorCheck) => !check.needed || check.status === 'ok';
  const packages = checks.filter((c) => c.status === 'missing' && c.package).map((c) => c.package);
  return {
    platform,
    sandbox: input.sandbox,
    ready: off || checks.every(passes),
    agentsReady: off || checks.filter((c) => !BASH_ONLY.has(c.name)).every(passes),
    bashReady: off || bash.status === 'ok',
    checks,
    ...(packages.length ? { install: `sudo apt-get install ${packages.join(' ')}` } : {}),
  };
}
