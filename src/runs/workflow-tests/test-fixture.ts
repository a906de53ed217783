import * as z from 'zod';
import { DomainError } from '../../shared/errors.js';
import { validateYamlWith, type WorkflowDefinition } from '../../workflows/index.js';

/**
 * The fixture of a workflow test (`svc workflow test`, docs/workflows.md "Testing a workflow"): the
 * run's message, what each agent node answers, how each approval gate is decided, and what must
 * hold of the run when it ends. Validated once, as YAML against the workflow it tests, every
 * problem with `file:line:col`.
 */

const NodeAnswerSchema = z
  .strictObject({
    output: z.string().optional().describe("the agent's final text: the node completes with it"),
    fail: z.string().optional().describe('the node fails with this error'),
  })
  .refine((answer) => (answer.output === undefined) !== (answer.fail === undefined), 'give exactly one of output or fail');

const ExpectSchema = z.strictObject({
  completed: z.array(z.string()).optional(),
  failed: z.array(z.string()).optional(),
  skipped: z.array(z.string()).optional(),
  contains: z.record(z.string(), z.string()).optional().describe('node id → text its output must contain'),
});

const FixtureSchema = z.strictObject({
  message: z.string().optional(),
  nodes: z.record(z.string(), NodeAnswerSchema).optional(),
  approvals: z.record(z.string(), z.enum(['approve', 'reject'])).optional(),
  expect: ExpectSchema.optional(),
});

export type TestFixture = z.infer<typeof FixtureSchema>;
export type NodeAnswer = z.infer<typeof NodeAnswerSchema>;

/** The fixture's checks against the workflow: each node it names exists and is of the kind its section is for. */
function fixtureSchemaFor(workflow: WorkflowDefinition) {
  const kinds = new Map(workflow.nodes.map((node) => [node.id, node.action.kind]));
  return FixtureSchema.superRefine((fixture, ctx) => {
    /** The node exists and, when `allowed` is given, is of one of those kinds (`what` says why). */
    const check = (path: (string | number)[], id: string, allowed?: { kinds: readonly string[]; what: string }) => {
      const kind = kinds.get(id);
      if (kind === undefined) ctx.addIssue({ code: 'custom', path, message: `no node '${id}' in workflow '${workflow.name}'` });
      else if (allowed && !allowed.kinds.includes(kind)) ctx.addIssue({ code: 'custom', path, message: `node '${id}' is a ${kind} node; ${allowed.what}` });
    };
    const agentNodes = { kinds: ['prompt', 'command'], what: 'only prompt and command nodes are answered from a fixture' };
    for (const id of Object.keys(fixture.nodes ?? {})) check(['nodes', id], id, agentNodes);
    for (const id of Object.keys(fixture.approvals ?? {})) check(['approvals', id], id, { kinds: ['approval'], what: 'approvals decide approval nodes only' });
    const expected = fixture.expect ?? {};
    for (const list of ['completed', 'failed', 'skipped'] as const) (expected[list] ?? []).forEach((id, i) => check(['expect', list, i], id));
    for (const id of Object.keys(expected.contains ?? {})) check(['expect', 'contains', id], id);
  });
}

/**
 * The fixture in `text` (YAML; empty: no answers, no decisions, no expectations), checked against
 * `workflow`; 422 `invalid_fixture` with every problem as `file:line:col: path: message` otherwise.
 */
export function parseFixture(text: string | undefined, filename: string, workflow: WorkflowDefinition): TestFixture {
  if (text === undefined || text.trim() === '') return {};
  const parsed = validateYamlWith(fixtureSchemaFor(workflow), text, filename);
  if (parsed.ok) return parsed.value;
  const count = parsed.errors.length;
  throw new DomainError('invalid_fixture', `The test fixture has ${count} error${count === 1 ? '' : 's'}.`, undefined, { errors: parsed.errors });
}
