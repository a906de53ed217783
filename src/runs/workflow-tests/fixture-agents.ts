import { AgentError, type Agent, type AgentRequest, type AgentResult } from '../../agents/index.js';
import type { AgentKind } from '../../config/index.js';
import type { NodeAnswer } from './test-fixture.js';

/**
 * The agents of a workflow test's run (docs/decisions.md, "Workflow tests"): every prompt and
 * command node is answered from the fixture — no agent process starts, nothing is spent — while
 * everything around the call (the env-leak gate, variables, retries, commits, conditions) runs as
 * it does for any run. A node the fixture does not answer fails, naming itself.
 */
export function fixtureAgents(answers: Readonly<Record<string, NodeAnswer>>): Record<AgentKind, Agent> {
  const run = async (request: AgentRequest): Promise<AgentResult> => {
    if (request.signal.aborted) throw new AgentError('agent_cancelled', 'cancelled');
    const answer = request.nodeId === undefined ? undefined : answers[request.nodeId];
    if (answer === undefined)
      throw new AgentError('agent_failed', `the test fixture has no answer for node '${request.nodeId ?? '?'}' (nodes.${request.nodeId ?? '?'})`);
    if (answer.fail !== undefined) throw new AgentError('agent_failed', answer.fail, 0);
    const text = answer.output ?? '';
    request.onText(text);
    return { text, costUsd: 0, tokens: null, sessionId: null, model: 'fixture' };
  };
  return { claude: { name: 'claude', run }, codex: { name: 'codex', run }, acp: { name: 'acp', run } };
}
