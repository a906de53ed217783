import * as z from 'zod';
import { checkProjectDir } from '../../catalog/index.js';
import { runWorkflowTest, WorkflowTestResultSchema } from '../../runs/index.js';
import { WorkflowNameSchema } from '../../workflows/index.js';
import { defineRoute } from '../route.js';
import { ErrorBodySchema } from '../schemas.js';

/** `POST /api/workflows/{name}/test` (docs/decisions.md, "Workflow tests"): a run whose agents answer from a fixture. */

const TestBody = z.strictObject({
  fixture: z
    .string()
    .optional()
    .describe('the fixture as YAML text (docs/workflows.md, "Testing a workflow"): message, nodes, approvals, expect; omitted: none'),
  fixtureName: z.string().max(4096).optional().describe("the fixture's file name, for `file:line:col` in its errors"),
  cwd: z.string().optional().describe("absolute working directory (default: the server's); project workflows are found under it"),
  keep: z.boolean().optional().describe('keep the test run afterwards (it is deleted otherwise)'),
});

const InvalidFixtureSchema = ErrorBodySchema.extend({
  error: z.literal('invalid_fixture'),
  errors: z.array(z.string()).describe('Every problem found, each `file:line:col: path: message`.'),
});

export const workflowTestRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/workflows/{name}/test',
    summary: "Run a workflow with its agents answered from a fixture and its gates decided by it, then check the fixture's expectations",
    tag: 'workflows',
    params: z.object({ name: WorkflowNameSchema }),
    body: TestBody,
    bodyOptional: true,
    errors: [400, 404, 409, 413, 415],
    responses: {
      200: { description: 'The run ended: whether every expectation held, and each one that did not', schema: WorkflowTestResultSchema },
      422: { description: 'The fixture is invalid; nothing ran', schema: InvalidFixtureSchema },
    },
    handle: ({ ctx, params, body }) => {
      const cwd = body?.cwd === undefined ? undefined : checkProjectDir(body.cwd);
      return runWorkflowTest(
        { engine: ctx.engine, findWorkflow: async (name, dir) => (await ctx.workflows.get(name, dir)).workflow },
        { workflow: params.name, fixture: body?.fixture, fixtureName: body?.fixtureName, cwd, keep: body?.keep },
      );
    },
  }),
];
