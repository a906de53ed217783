/**
 * The rules that relate parts of a workflow to each other: exactly one action per node,
 * `permissions` only where an agent runs, `idle_timeout` only where a process runs, unique node ids, dependencies that exist and do not
 * loop, `when` conditions and `$id.output` references that name upstream nodes, unique webhook
 * slugs.
 *
 * These run on the raw value even when the schema check failed, so that one pass reports every
 * problem: each rule reads only the parts it needs and skips what is ill-typed (the schema check
 * reports that).
 */

import { didYouMean } from './did-you-mean.js';
import { cronProblem, isTimeZone } from './cron.js';
import { DependencyGraph, findDependencyProblems, formatCycle } from './graph.js';
import type { GraphNode } from './graph.js';
import type { PathSegment, Problem } from './problems.js';
import { findBashOutputRefs, findOutputRefs, isLiveBashRef, isUnsafeBashRef } from './references.js';
import type { OutputRef } from './references.js';
import { AGENT_ACTIONS, NODE_ACTIONS } from './schema.js';
import { outsideValueProblems, unsafeContextAdvice } from './shell/index.js';
import { parseWhen } from './when.js';

type Dict = Record<string, unknown>;

function isDict(value: unknown): value is Dict {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The parts of one node the rules look at, as far as they are well-typed. */
interface NodeSketch {
  readonly index: number;
  readonly raw: Dict;
  readonly id: string | undefined;
  /** String entries of depends_on with their position in the list. */
  readonly deps: readonly { readonly id: string; readonly index: number }[];
}

function sketchNodes(nodes: readonly unknown[]): NodeSketch[] {
  const sketches: NodeSketch[] = [];
  nodes.forEach((node, index) => {
    if (!isDict(node)) return;
    const deps: { id: string; index: number }[] = [];
    if (Array.isArray(node.depends_on)) {
      node.depends_on.forEach((dep: unknown, depIndex: number) => {
        if (typeof dep === 'string') deps.push({ id: dep, index: depIndex });
      });
    }
    sketches.push({ index, raw: node, id: typeof node.id === 'string' ? node.id : undefined, deps });
  });
  return sketches;
}

function checkActions(node: NodeSketch, problems: Problem[]): void {
  const found = NODE_ACTIONS.filter((action) => Object.hasOwn(node.raw, action));
  if (found.length === 1) return;
  problems.push({
    path: ['nodes', node.index],
    message: `a node needs exactly one of ${NODE_ACTIONS.join(', ')} (found: ${found.length === 0 ? 'none' : found.join(', ')})`,
  });
}

/**
 * `permissions` says what an agent may do: a bash script or a gate has no agent to restrict.
 * `sandbox` widens an agent's sandbox, or asks for (or declines) a bash node's; a gate or a wait
 * runs nothing to confine. `true`/`false` are a bash node's: an agent's sandbox follows its level.
 */
function checkPermissionsKey(node: NodeSketch, problems: Problem[]): void {
  const action = NODE_ACTIONS.find((name) => Object.hasOwn(node.raw, name));
  if (action === undefined) return;
  const runsAgent = (AGENT_ACTIONS as readonly string[]).includes(action);
  for (const key of ['permissions', 'sandbox'] as const) {
    if (!Object.hasOwn(node.raw, key) || runsAgent || (key === 'sandbox' && action === 'bash')) continue;
    problems.push({
      path: ['nodes', node.index, key],
      message:
        key === 'sandbox'
          ? `sandbox applies to a bash node or the agent of a prompt or command node; ${action === 'approval' ? 'an' : 'a'} ${action} node runs nothing to confine (remove it)`
          : `${key} applies to the agent of a prompt or command node; ${action === 'approval' ? 'an' : 'a'} ${action} node has none (remove it)`,
    });
  }
  if (runsAgent && typeof node.raw.sandbox === 'boolean')
    problems.push({
      path: ['nodes', node.index, 'sandbox'],
      message: `sandbox: ${node.raw.sandbox} is for a bash node; an agent's sandbox follows its permissions (read and edit: on, full: off) — give a widening ({ network, read, write }) or a level`,
    });
}

/** `idle_timeout` watches a process's output and `max_memory` its memory: a gate or a wait runs none. */
function checkIdleTimeoutKey(node: NodeSketch, problems: Problem[]): void {
  const action = (['approval', 'wait'] as const).find((key) => Object.hasOwn(node.raw, key));
  if (action === undefined) return;
  for (const key of ['idle_timeout', 'max_memory', 'memory'] as const) {
    if (!Object.hasOwn(node.raw, key)) continue;
    problems.push({
      path: ['nodes', node.index, key],
      message: `${key} applies to a node that runs a process (prompt, command, bash); ${action === 'approval' ? 'an approval' : 'a wait'} node has none (remove it)`,
    });
  }
}

/** An approval cannot fail: it is approved, or rejected, and a rejection stops the whole run. */
function checkContinueOnError(node: NodeSketch, problems: Problem[]): void {
  if (!Object.hasOwn(node.raw, 'continue_on_error') || !Object.hasOwn(node.raw, 'approval')) return;
  problems.push({
    path: ['nodes', node.index, 'continue_on_error'],
    message:
      'continue_on_error applies to a node that can fail (prompt, command, bash, wait); an approval is approved or rejected, and a rejection cancels the run (remove it)',
  });
}

/** A wait is for a time or for an event, never both; only an event wait can time out (a time wait is its own timeout). */
function checkWait(node: NodeSketch, problems: Problem[]): void {
  const wait = node.raw.wait;
  if (!isDict(wait)) return;
  const path = ['nodes', node.index, 'wait'];
  const kinds = (['for', 'event'] as const).filter((key) => Object.hasOwn(wait, key));
  if (kinds.length !== 1) {
    problems.push({ path, message: `a wait needs exactly one of for, event (found: ${kinds.length === 0 ? 'none' : kinds.join(', ')})` });
  } else if (kinds[0] === 'for' && Object.hasOwn(wait, 'timeout')) {
    problems.push({ path: [...path, 'timeout'], message: 'timeout applies to a wait for an event; a wait for a duration ends by itself (remove it)' });
  }
  // A node's `timeout` and `retry` limit and repeat an attempt of a process; a wait has none, and its own timeout goes inside `wait:`.
  for (const key of ['timeout', 'retry'] as const) {
    if (!Object.hasOwn(node.raw, key)) continue;
    const where = key === 'timeout' ? 'an event wait takes its timeout inside wait: { event, timeout }' : 'a wait has no attempts to repeat';
    problems.push({ path: ['nodes', node.index, key], message: `${key} applies to a node that runs a process; ${where} (remove it)` });
  }
}

/** An agent never inherits the server's environment (docs/contract.md, "Least-privilege environment"): `env.inherit: true` there would be a promise svc does not keep. */
function checkEnvInherit(node: NodeSketch, problems: Problem[]): void {
  const env = node.raw.env as { inherit?: unknown } | undefined;
  if (typeof env !== 'object' || env === null || env.inherit !== true) return;
  const action = NODE_ACTIONS.find((key) => Object.hasOwn(node.raw, key));
  if (action === 'bash') return;
  problems.push({
    path: ['nodes', node.index, 'env', 'inherit'],
    message: `env.inherit: true applies to bash nodes; an agent gets the base set and the names in env.allow (list the ones it needs)`,
  });
}

function checkDuplicateIds(sketches: readonly NodeSketch[], problems: Problem[]): void {
  const firstIndex = new Map<string, number>();
  for (const node of sketches) {
    if (node.id === undefined) continue;
    const first = firstIndex.get(node.id);
    if (first === undefined) firstIndex.set(node.id, node.index);
    else problems.push({ path: ['nodes', node.index, 'id'], message: `duplicate node id '${node.id}' (first used by nodes[${first}])` });
  }
}

function checkDependencies(sketches: readonly NodeSketch[], ids: ReadonlySet<string>, problems: Problem[]): GraphNode[] {
  // Nodes without a usable id still take part (their unknown dependencies are reported), under a
  // key no real id can have — and since nothing can name them, they can be on no cycle.
  const graphNodes: GraphNode[] = sketches.map((node) => ({
    id: node.id ?? `\u0000nodes[${node.index}]`,
    dependsOn: node.deps.map((dep) => dep.id),
  }));
  for (const problem of findDependencyProblems(graphNodes)) {
    const node = sketches[problem.nodeIndex] as NodeSketch;
    const dep = node.deps[problem.depIndex];
    const path: PathSegment[] = ['nodes', node.index, 'depends_on'];
    const at: PathSegment[] = dep === undefined ? path : [...path, dep.index];
    switch (problem.kind) {
      case 'unknown':
        problems.push({ path, at, message: `unknown node '${problem.dependency}'${didYouMean(problem.dependency, ids)}` });
        break;
      case 'self':
        problems.push({ path, at, message: `node '${node.id ?? ''}' cannot depend on itself` });
        break;
      case 'cycle':
        problems.push({ path, at, message: `cycle: ${formatCycle(problem.cycle)}` });
        break;
    }
  }
  return graphNodes;
}

/**
 * Checks that each referenced node exists and runs before `node`, once per referenced id.
 * `hintShellVariable`: in bash, `$FILE.output` is more likely a shell variable than a node.
 */
function checkReferences(
  node: NodeSketch,
  path: readonly PathSegment[],
  refIds: Iterable<string>,
  ids: ReadonlySet<string>,
  graph: DependencyGraph,
  problems: Problem[],
  hintShellVariable = false,
): void {
  for (const ref of new Set(refIds)) {
    const written = `$${ref}.output`;
    if (!ids.has(ref)) {
      let hint = didYouMean(ref, ids);
      if (hint === '' && hintShellVariable && /^[A-Z_][A-Z0-9_]*$/.test(ref)) hint = ` (for a shell variable, write \${${ref}}.output)`;
      problems.push({ path, message: `${written} refers to unknown node '${ref}'${hint}` });
    } else if (ref === node.id) {
      problems.push({ path, message: `${written} is this node's own output, which does not exist yet when it runs` });
    } else if (node.id !== undefined && !graph.isAncestor(ref, node.id)) {
      problems.push({
        path,
        message: `${written} refers to node '${ref}', which is not upstream of '${node.id}': its output would not exist yet (add '${ref}' to depends_on)`,
      });
    }
  }
}

function checkNodeTexts(node: NodeSketch, ids: ReadonlySet<string>, graph: DependencyGraph, problems: Problem[]): void {
  const base: PathSegment[] = ['nodes', node.index];
  const { raw } = node;

  if (typeof raw.when === 'string') {
    const parsed = parseWhen(raw.when);
    if (!parsed.ok) problems.push({ path: [...base, 'when'], message: parsed.error });
    else checkReferences(node, [...base, 'when'], parsed.refs, ids, graph, problems);
  }

  const idsOf = (refs: readonly OutputRef[]): string[] => refs.map((ref) => ref.id);
  if (typeof raw.prompt === 'string') {
    checkReferences(node, [...base, 'prompt'], idsOf(findOutputRefs(raw.prompt)), ids, graph, problems);
  }
  if (isDict(raw.approval) && typeof raw.approval.message === 'string') {
    checkReferences(node, [...base, 'approval', 'message'], idsOf(findOutputRefs(raw.approval.message)), ids, graph, problems);
  }
  if (typeof raw.bash === 'string') {
    const refs = findBashOutputRefs(raw.bash).filter(isLiveBashRef);
    const reported = new Set<string>();
    const messages = [...refs.filter(isUnsafeBashRef).map((ref) => unsafeContextAdvice(ref.context, `$${ref.id}.output`)), ...outsideValueProblems(raw.bash)];
    for (const message of messages) {
      if (reported.has(message)) continue;
      reported.add(message);
      problems.push({ path: [...base, 'bash'], message });
    }
    checkReferences(node, [...base, 'bash'], idsOf(refs), ids, graph, problems, true);
  }
}

function checkWebhookSlugs(triggers: unknown, problems: Problem[]): void {
  if (!isDict(triggers) || !Array.isArray(triggers.webhook)) return;
  const firstIndex = new Map<string, number>();
  triggers.webhook.forEach((trigger: unknown, index: number) => {
    if (isDict(trigger) && Object.hasOwn(trigger, 'signal') !== Object.hasOwn(trigger, 'run_field')) {
      const [has, lacks] = Object.hasOwn(trigger, 'signal') ? ['signal', 'run_field'] : ['run_field', 'signal'];
      problems.push({
        path: ['triggers', 'webhook', index, has],
        message: `${has} needs ${lacks}: a signalling trigger names its event (signal) and the payload field holding the run id (run_field)`,
      });
    }
    if (!isDict(trigger) || typeof trigger.slug !== 'string') return;
    const first = firstIndex.get(trigger.slug);
    if (first === undefined) firstIndex.set(trigger.slug, index);
    else {
      problems.push({
        path: ['triggers', 'webhook', index, 'slug'],
        message: `duplicate slug '${trigger.slug}' (also used by triggers.webhook[${first}])`,
      });
    }
  });
}

/** Each schedule's cron expression parses and its time zone exists (docs/decisions.md, "Schedules"). */
function checkSchedules(triggers: unknown, problems: Problem[]): void {
  if (!isDict(triggers) || !Array.isArray(triggers.schedule)) return;
  triggers.schedule.forEach((trigger: unknown, index: number) => {
    if (!isDict(trigger)) return;
    if (typeof trigger.cron === 'string' && trigger.cron.trim() !== '') {
      const problem = cronProblem(trigger.cron);
      if (problem) problems.push({ path: ['triggers', 'schedule', index, 'cron'], message: `invalid cron expression '${trigger.cron}': ${problem}` });
    }
    if (typeof trigger.timezone === 'string' && trigger.timezone !== '' && !isTimeZone(trigger.timezone)) {
      problems.push({
        path: ['triggers', 'schedule', index, 'timezone'],
        message: `unknown time zone '${trigger.timezone}' (an IANA name such as Europe/Berlin)`,
      });
    }
  });
}

/** Every cross-field problem of a raw workflow value (well-typed or not). */
export function semanticProblems(input: unknown): Problem[] {
  if (!isDict(input)) return [];
  const problems: Problem[] = [];
  if (Array.isArray(input.nodes)) {
    const sketches = sketchNodes(input.nodes);
    const ids = new Set(sketches.flatMap((node) => (node.id === undefined ? [] : [node.id])));
    for (const node of sketches) {
      checkActions(node, problems);
      checkPermissionsKey(node, problems);
      checkIdleTimeoutKey(node, problems);
      checkContinueOnError(node, problems);
      checkWait(node, problems);
      checkEnvInherit(node, problems);
    }
    checkDuplicateIds(sketches, problems);
    const graph = new DependencyGraph(checkDependencies(sketches, ids, problems));
    for (const node of sketches) checkNodeTexts(node, ids, graph, problems);
  }
  checkWebhookSlugs(input.triggers, problems);
  checkSchedules(input.triggers, problems);
  return problems;
}
