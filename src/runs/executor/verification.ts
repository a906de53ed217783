/**
 * A repository's `verify:` script (`.svc/worktree.yaml`), run for the landing queue (docs/decisions.md,
 * "Landing queue") as a bash node of the run it verifies: the same runner (nodes/bash.ts), so the
 * same process group, time limit, environment (the server's, the workspace's env values, the run
 * variables) and sandbox decision (`SVC_SANDBOX_BASH`, or a run with values from outside) — only
 * the directory is the queue's scratch worktree, whose HEAD is the commit that would land.
 */

import { DEFAULT_TIMEOUT_MS, type WorkflowDefinition, type WorkflowNode } from '../../workflows/index.js';
import type { RunRecord } from '../model/types.js';
import { bashRunner } from './nodes/bash.js';
import { NodeCancelled, NodeFailure, type SandboxDeps } from './nodes/types.js';

export interface VerificationRequest {
  /** The run whose branch is verified: its sandbox decision and `RUN_ID`. */
  run: RunRecord;
  /** The scratch worktree the script runs in. */
  cwd: string;
  script: string;
  /** Default: a bash node's default time limit. */
  timeoutMs?: number | undefined;
  /** The workspace's env values. */
  env: Readonly<Record<string, string>>;
  /** Variables the script is given beyond the workspace's (`RUN_ID`, the target branch, …). */
  variables: Readonly<Record<string, string>>;
  artifactsDir: string;
  signal: AbortSignal;
}

export type VerificationOutcome =
  | { passed: true; output: string }
  /** `code`: `exit_code`, `timeout`, `sandbox_unavailable`, …, as a bash node's failure; `cancelled` when stopped. */
  | { passed: false; code: string; message: string; output: string };

/** The most of the output a verification keeps: its tail is what a person or an agent reads. */
const KEPT_OUTPUT = 64 * 1024;

export async function runVerification(request: VerificationRequest, sandbox: SandboxDeps): Promise<VerificationOutcome> {
  const node: WorkflowNode = {
    id: 'verify',
    action: { kind: 'bash', bash: request.script },
    dependsOn: [],
    when: undefined,
    whenSource: undefined,
    triggerRule: 'all_success',
    timeoutMs: request.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    idleTimeoutMs: undefined,
    retry: { maxAttempts: 1, delayMs: 0 },
    assistant: undefined,
    model: undefined,
    permissions: undefined,
  };
  // Both streams, interleaved as they came: a failing test prints its reason on either.
  let output = '';
  const keep = (text: string) => {
    output += text;
    if (output.length > 2 * KEPT_OUTPUT) output = output.slice(-KEPT_OUTPUT);
  };
  const tail = () => output.slice(-KEPT_OUTPUT);
  try {
    await bashRunner(sandbox)({
      run: { ...request.run, cwd: request.cwd },
      workflow: { name: request.run.workflow, nodes: [node] } as unknown as WorkflowDefinition,
      node,
      outputs: {},
      variables: request.variables,
      artifactsDir: request.artifactsDir,
      env: request.env,
      envAllow: [],
      onEnvGiven: () => undefined,
      signal: request.signal,
      onOutput: (_stream, text) => keep(text),
      onTool: () => undefined,
      onSandboxDenied: (denial) => keep(`svc: the sandbox refused ${JSON.stringify(denial)}\n`),
      onSandboxWarning: (warning) => keep(`svc: ${warning}\n`),
      onSlotWait: () => undefined,
      admitMemory: async () => undefined,
      onProcess: () => undefined,
    });
    return { passed: true, output: tail() };
  } catch (error) {
    if (error instanceof NodeCancelled) return { passed: false, code: 'cancelled', message: 'the verification was stopped', output: tail() };
    if (error instanceof NodeFailure) return { passed: false, code: error.code, message: error.message, output: tail() };
    return { passed: false, code: 'verify_error', message: (error as Error).message, output: tail() };
  }
}
