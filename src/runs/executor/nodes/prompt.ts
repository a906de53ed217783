import { AgentError, agentEnvironment, agentFor, withheldVariableHint } from '../../../agents/index.js';
import { DEFAULT_NODE_PERMISSIONS } from '../../../shared/permissions.js';
import { processVariables } from './process-env.js';
import { builtinNear, renderPrompt } from '../../../workflows/index.js';
import { agentLineTooLarge, OUTPUT_LIMIT_BYTES, outputTooLarge } from './output-limit.js';
import { NodeCancelled, NodeFailure, type NodeRunner, type PromptDeps } from './types.js';
import { remainingBudget } from '../spend-cap.js';
import { callCost } from '../../../config/index.js';
import { prepareAgentSandbox } from './agent-sandbox.js';
import { withTraceparent } from './process-env.js';

/**
 * `prompt` and `command` nodes: the text (a command's markdown for `command`) with the run's
 * variables substituted, sent to the node's agent. Model: node → workflow → configuration;
 * permissions: node → workflow → `edit`.
 */
export const promptRunner =
  ({ agents, assistants, loadCommand, firstEventTimeoutMs, idleTimeoutMs, usageLimitRetryMs, logger, assertAgentAllowed, sandbox }: PromptDeps): NodeRunner =>
  async ({
    run,
    node,
    outputs,
    variables,
    artifactsDir,
    env,
    envAllow,
    onEnvGiven,
    signal,
    onOutput,
    onTool,
    onSandboxDenied,
    onSandboxWarning,
    onProcess,
    onSlotWait,
    admitMemory,
    traceparent,
  }) => {
    const { action } = node;
    // The env-leak gate, before every agent invocation: the workspace's .env files are scanned afresh.
    if (run.workspaceId) {
      try {
        await assertAgentAllowed(run.workspaceId, run.cwd);
      } catch (error) {
        const { code, message } = error as { code?: string; message: string };
        throw new NodeFailure(code ?? 'env_leak_blocked', message);
      }
    }
    let text: string;
    if (action.kind === 'prompt') text = action.prompt;
    else if (action.kind === 'command') {
      let loaded: string | undefined;
      try {
        loaded = await loadCommand(action.command, run.cwd);
      } catch (error) {
        // The project's file is there but refused (a FIFO, a device, too large) or unreadable.
        throw new NodeFailure('command_unreadable', `command '${action.command}' cannot be read: ${(error as Error).message}`);
      }
      if (loaded === undefined)
        throw new NodeFailure('command_not_found', `command '${action.command}' was not found (bundled or .svc/commands/${action.command}.md)`);
      text = loaded;
    } else throw new Error(`runPromptNode got a ${action.kind} node`);

    // Read at each start: with a shared database, another server may have changed the configuration.
    const assistant = node.assistant ?? (await assistants.defaultAssistant());
    let launch;
    try {
      launch = await assistants.launchOf(assistant);
    } catch (error) {
      // A workflow may name an acp assistant this server's configuration does not have; one a
      // letter from a built-in name is more likely a typo of it.
      const near = builtinNear(assistant);
      throw new NodeFailure('unknown_assistant', `${(error as Error).message}${near ? ` (did you mean '${near}'?)` : ''}`);
    }
    const model = node.model ?? (await assistants.modelOf(assistant));
    const endpoint = (await assistants.endpointOf?.(assistant)) ?? null;
    // Least privilege (docs/contract.md, "Least-privilege environment"): the base set, the agent's own, what was allowed and what was given.
    const withheld = await agentEnvironment({ launch, endpoint, server: process.env, allow: envAllow, given: { ...env, ...processVariables(variables) } });
    onEnvGiven(withheld.given);
    const confined = await prepareAgentSandbox({ run, node, artifactsDir }, sandbox, withheld.env);
    try {
      const { agent, request } = agentFor(agents, launch);
      const result = await agent.run({
        ...request,
        nodeId: node.id,
        prompt: renderPrompt(text, variables, outputs),
        cwd: run.cwd,
        model,
        permissions: node.permissions ?? DEFAULT_NODE_PERMISSIONS,
        sandbox: confined.sandbox,
        // Given after the environment is withheld: svc's own, like its TMPDIR, never one of the names allowed.
        env: withTraceparent(confined.env, traceparent),
        endpoint,
        ...(run.maxCostUsd != null ? { maxBudgetUsd: remainingBudget(run) } : {}),
        signal,
        firstEventTimeoutMs,
        timeoutMs: node.timeoutMs,
        idleTimeoutMs: node.idleTimeoutMs ?? idleTimeoutMs,
        onText: (chunk) => onOutput('assistant', chunk),
        onTool,
        onSandboxDenied,
        onSandboxWarning,
        onProcess,
        onSlotWait,
        admitMemory,
        logger,
      });
      // The same rule as bash's stdout: a longer answer fails the node rather than being passed on cut.
      if (Buffer.byteLength(result.text) > OUTPUT_LIMIT_BYTES) throw outputTooLarge(node.id, 'answered');
      return {
        output: result.text,
        costUsd: await callCost(result, assistants.priceOf && (() => assistants.priceOf!(assistant))),
        tokens: result.tokens,
        model: result.model,
        agent: { assistant, requestModel: model },
      };
    } catch (error) {
      if (error instanceof AgentError) {
        // A failed call's cost: what it reported, else the tokens it reported at the assistant's price.
        const costUsd = await callCost(error, assistants.priceOf && (() => assistants.priceOf!(assistant)));
        if (error.code === 'agent_cancelled') throw new NodeCancelled(costUsd);
        if (error.code === 'output_too_large') throw agentLineTooLarge(node.id, error.message);
        if (error.code === 'usage_limit') {
          const resumeAt = error.resumeAt ?? new Date(Date.now() + usageLimitRetryMs).toISOString();
          throw new NodeFailure(error.code, error.message, costUsd, resumeAt);
        }
        // A failure naming a variable the agent was not given says how to give it.
        const hint = withheldVariableHint(error.message, process.env, withheld.env);
        throw new NodeFailure(error.code, hint ? `${error.message}; ${hint}` : error.message, costUsd);
      }
      throw error;
    } finally {
      await confined.dispose();
    }
  };
