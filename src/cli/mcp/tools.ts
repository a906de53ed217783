import { resolve } from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { PERMISSIONS, type SvcClient } from '../../client/index.js';
import { followRun } from '../commands/run/_follow.js';
import { toRunLine, toRunSummary } from './run-summary.js';
import { answer } from './tool-result.js';

/** `wait_run` waits this long unless told otherwise: under the 60 s an MCP client's request waits by default. */
export const DEFAULT_WAIT_SECONDS = 45;
export const MAX_WAIT_SECONDS = 600;

export interface ToolDeps {
  client: SvcClient;
  /** Where runs start and workflows are looked up unless a call names a `cwd`: the directory the agent started `svc mcp` in. */
  cwd: string;
  /** Ids of the runs this session started (they are cancelled if the session ends while they execute in this process). */
  started: Set<string>;
}

const runId = z.string().min(1).describe('the run id (or an unambiguous prefix), as start_run or list_runs gave it');
const cwd = z.string().min(1).optional().describe('the project directory whose .svc/workflows are used (default: the directory svc mcp was started in)');

/**
 * The tools (docs/mcp.md): each a thin call of the client — the same one every command uses —
 * and a view written for a model. Every failure is a tool error carrying svc's code and message.
 */
export function registerTools(server: McpServer, deps: ToolDeps): void {
  const { client } = deps;
  const where = (dir: string | undefined) => resolve(deps.cwd, dir ?? '.');
  const summary = async (id: string) => toRunSummary(await client.runs.get(id));

  server.registerTool(
    'list_workflows',
    {
      description: 'List the svc workflows you can start here, with what each does.',
      inputSchema: { cwd },
      annotations: { readOnlyHint: true },
    },
    (input) =>
      answer(async () => {
        const listing = await client.workflows.list(where(input.cwd));
        return {
          workflows: listing.workflows.map((w) => ({ name: w.name, description: w.description, source: w.source, nodes: w.nodes, workspaceId: w.workspaceId })),
          ...(listing.errors ? { errors: listing.errors } : {}),
        };
      }),
  );

  server.registerTool(
    'start_run',
    {
      description: 'Start a run of an svc workflow with a task message; returns its run id (follow it with wait_run or get_run).',
      inputSchema: {
        workflow: z.string().min(1).describe('the workflow name, as list_workflows shows it'),
        message: z.string().default('').describe('the task for the run ($ARGUMENTS in the workflow)'),
        workspace: z
          .string()
          .min(1)
          .optional()
          .describe('a registered workspace (id, name or unambiguous id prefix): the run works in a git worktree of its own (branch svc/<runId>)'),
        permissions: z
          .enum(PERMISSIONS)
          .optional()
          .describe("what the run's agents may do at most: read, edit or full; lowers the workflow's, never raises it (a higher one is refused)"),
        cwd,
      },
    },
    (input) =>
      answer(async () => {
        const started = await client.runs.start(input.workflow, {
          message: input.message,
          cwd: where(input.cwd),
          ...(input.workspace ? { workspaceId: input.workspace } : {}),
          ...(input.permissions ? { permissions: input.permissions } : {}),
        });
        deps.started.add(started.runId);
        return started;
      }),
  );

  server.registerTool(
    'get_run',
    {
      description: "Show a run now: its status, each node's state, its cost, and the last lines of its output.",
      inputSchema: { runId },
      annotations: { readOnlyHint: true },
    },
    (input) => answer(() => summary(input.runId)),
  );

  server.registerTool(
    'wait_run',
    {
      description: 'Wait until a run ends, pauses at an approval gate, or the timeout passes; returns the same view as get_run plus timedOut.',
      inputSchema: {
        runId,
        timeoutSeconds: z
          .number()
          .int()
          .min(1)
          .max(MAX_WAIT_SECONDS)
          .default(DEFAULT_WAIT_SECONDS)
          .describe(`how long to wait at most (default ${DEFAULT_WAIT_SECONDS}); call again if the run is still going`),
      },
      annotations: { readOnlyHint: true },
    },
    (input) =>
      answer(async () => {
        const run = await client.runs.get(input.runId);
        const timer = AbortSignal.timeout(input.timeoutSeconds * 1000);
        // From the run's whole history: an ending before we connected is replayed, and is final only if the run is settled now.
        await followRun(client, run.id, () => {}, 0, { signal: timer, untilWaiting: true });
        const view = await summary(run.id);
        return { ...view, timedOut: view.status === 'running' || view.status === 'pending' };
      }),
  );

  server.registerTool(
    'run_diff',
    {
      description: "Show what a run changed on its branch: the files and the unified diff (or one node's changes).",
      inputSchema: { runId, node: z.string().min(1).optional().describe("only this node's commits") },
      annotations: { readOnlyHint: true },
    },
    (input) => answer(() => client.runs.diff(input.runId, input.node ? { node: input.node } : {})),
  );

  server.registerTool(
    'approve_run',
    {
      description: 'Approve the approval gate a paused run waits at, so the run goes on.',
      inputSchema: { runId, comment: z.string().optional().describe("becomes the gate's output") },
    },
    (input) =>
      answer(async () => {
        const run = await client.runs.approve(input.runId, input.comment === undefined ? {} : { comment: input.comment });
        return summary(run.id);
      }),
  );

  server.registerTool(
    'reject_run',
    {
      description: 'Reject the approval gate a paused run waits at; the run is cancelled with your reason.',
      inputSchema: { runId, reason: z.string().optional().describe('why, recorded on the run and the gate') },
      annotations: { destructiveHint: true },
    },
    (input) =>
      answer(async () => {
        const run = await client.runs.reject(input.runId, input.reason === undefined ? {} : { reason: input.reason });
        return summary(run.id);
      }),
  );

  server.registerTool(
    'cancel_run',
    {
      description: 'Cancel a pending or running run (its processes are stopped).',
      inputSchema: { runId },
      annotations: { destructiveHint: true },
    },
    (input) =>
      answer(async () => {
        const run = await client.runs.cancel(input.runId);
        return summary(run.id);
      }),
  );

  server.registerTool(
    'list_runs',
    {
      description: 'List recent runs, newest first, optionally of one workflow or in some states.',
      inputSchema: {
        workflow: z.string().min(1).optional().describe('only runs of this workflow'),
        status: z.string().min(1).optional().describe('comma-separated states: pending, running, paused, completed, failed, cancelled, abandoned'),
        limit: z.number().int().min(1).max(200).default(20).describe('how many (default 20)'),
      },
      annotations: { readOnlyHint: true },
    },
    (input) =>
      answer(async () => {
        const list = await client.runs.list({
          limit: input.limit,
          ...(input.workflow ? { workflow: input.workflow } : {}),
          ...(input.status ? { status: input.status } : {}),
        });
        return { runs: list.runs.map(toRunLine), total: list.total };
      }),
  );
}
