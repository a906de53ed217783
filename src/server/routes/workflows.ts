import * as z from 'zod';
import { defineRoute, reply } from '../route.js';
import { ErrorBodySchema } from '../schemas.js';
import { PROJECT_DIR_DESCRIPTION, toCommandListing, toSavedDocument, toWorkflowDocument, toWorkflowListing } from '../../catalog/index.js';
import { checkedWhole, RawWorkflowSchema, validateWorkflowSource, WorkflowNameSchema } from '../../workflows/index.js';

/**
 * Workflow definitions (docs/contract.md, "Workflow files"). `workflow` in every answer is
 * the definition as the user wrote it (snake_case keys, durations as written), not svc's
 * normalized form: it is what they edit and what PUT takes back.
 */

// The catalog checks `cwd` (ProjectDirSchema, catalog/project-dir.ts) when it resolves it, so the
// route and the CLI's offline mode answer a bad one alike.
const CwdQuery = z.object({ cwd: z.string().optional().describe(PROJECT_DIR_DESCRIPTION) });

/** Where a name is looked up: a workspace's own workflows first (docs/contract.md, "Workflow files"). */
const PlaceQuery = CwdQuery.extend({
  workspaceId: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe(
      'the workspace the request speaks for (its id, its name or a unique id prefix; 404 workspace_not_found when unknown): its workflows first; default: the one whose checkout holds cwd',
    ),
});

const NameParams = z.object({ name: WorkflowNameSchema });

const DefinitionBody = z.object({
  definition: z
    .union([z.string(), z.record(z.string(), z.unknown())], { error: 'definition must be YAML text or an object' })
    .describe('The workflow as YAML text or as an object (docs/decisions.md, Workflow files).'),
});

const SourceSchema = z.enum(['project', 'bundled']);

const SummarySchema = z.object({
  name: z.string(),
  description: z.string(),
  source: SourceSchema,
  filename: z.string().describe('Absolute path of the file.'),
  nodes: z.int().describe('Number of nodes.'),
  triggers: z.array(z.object({ kind: z.literal('webhook'), event: z.string(), slug: z.string() })),
  workspaceId: z.string().nullable().describe('The registered workspace the file was found in, if any.'),
  workspaceName: z.string().nullable().describe("That workspace's name."),
});

const DiscoveryErrorSchema = z.object({
  filename: z.string(),
  error: z.string().describe('One `file:line:col: message` line.'),
});

const DocumentSchema = z.object({
  workflow: RawWorkflowSchema.describe('The definition as written (snake_case keys).'),
  filename: z.string(),
  source: SourceSchema,
  workspaceId: z.string().nullable(),
});

const SavedSchema = DocumentSchema.extend({
  errors: z.array(z.string()).optional().describe('What discovery reports about the saved file (e.g. a slug taken elsewhere); the file is saved.'),
});

const InvalidWorkflowSchema = ErrorBodySchema.extend({
  error: z.literal('invalid_workflow'),
  errors: z.array(z.string()).describe('Every problem found, each naming its place (`line:col: path: message`).'),
});

export const workflowRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/workflows',
    summary: "Discover workflows: the workspace of the request, the project under cwd, bundled ones, and every other workspace's",
    tag: 'workflows',
    query: PlaceQuery,
    errors: [400, 404],
    responses: {
      200: {
        description:
          'Workflows by name, each with the workspace it belongs to: a name is listed once from here (its workspace, cwd, bundled: the first that has it) and once for each other workspace that has it; files that failed to load are in errors and hide nothing else',
        schema: z.object({ workflows: z.array(SummarySchema), errors: z.array(DiscoveryErrorSchema).optional() }),
      },
    },
    handle: async ({ ctx, query }) =>
      // Named as the user names it (an id, a name or a unique prefix), as everywhere.
      toWorkflowListing(await ctx.workflows.discover(query.cwd, { workspaceId: query.workspaceId ? await ctx.workspaces.idOf(query.workspaceId) : null })),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/workflows/validate',
    summary: 'Validate a definition without saving it',
    tag: 'workflows',
    body: DefinitionBody,
    errors: [400, 413, 415],
    responses: {
      200: {
        description: 'Every problem found, each naming its place',
        schema: z.object({ valid: z.boolean(), errors: z.array(z.string()).optional() }),
      },
    },
    handle: async ({ body }) => {
      const result = await checkedWhole(() => validateWorkflowSource(body.definition));
      return result.ok ? { valid: true } : { valid: false, errors: result.errors };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/workflows/{name}',
    summary: 'One workflow definition as written',
    tag: 'workflows',
    params: NameParams,
    query: PlaceQuery,
    errors: [400, 404],
    responses: { 200: { description: 'The workflow', schema: DocumentSchema } },
    handle: async ({ ctx, params, query }) =>
      toWorkflowDocument(await ctx.workflows.get(params.name, query.cwd, query.workspaceId ? await ctx.workspaces.idOf(query.workspaceId) : undefined)),
  }),
  defineRoute({
    method: 'PUT',
    path: '/api/workflows/{name}',
    summary: 'Create or replace a project workflow: <cwd>/.svc/workflows/<name>.yaml',
    tag: 'workflows',
    params: NameParams,
    query: CwdQuery,
    body: DefinitionBody,
    errors: [400, 413, 415],
    responses: {
      200: { description: 'Replaced', schema: SavedSchema },
      201: { description: 'Created', schema: SavedSchema },
      422: { description: 'The definition is invalid; nothing was saved', schema: InvalidWorkflowSchema },
    },
    handle: async ({ ctx, params, query, body }) => {
      const saved = await ctx.workflows.save(params.name, body.definition, query.cwd);
      return reply(saved.created ? 201 : 200, toSavedDocument(saved));
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/workflows/{name}',
    summary: 'Delete a project workflow (bundled ones are read-only)',
    tag: 'workflows',
    params: NameParams,
    query: CwdQuery,
    errors: [400, 403, 404],
    responses: {
      200: { description: 'The files removed', schema: z.object({ name: z.string(), deleted: z.array(z.string()) }) },
    },
    handle: ({ ctx, params, query }) => ctx.workflows.remove(params.name, query.cwd),
  }),
];

export const commandRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/commands',
    summary: 'Commands (markdown prompts): bundled and <cwd>/.svc/commands/*.md',
    tag: 'workflows',
    query: CwdQuery,
    errors: [400],
    responses: {
      200: {
        description:
          'Commands by name; a project command overrides a bundled one. Files refused unread (not a regular file, over 1 MiB) or unreadable are in errors and hide nothing else',
        schema: z.object({
          commands: z.array(z.object({ name: z.string(), source: SourceSchema, filename: z.string(), description: z.string() })),
          errors: z.array(DiscoveryErrorSchema).optional(),
        }),
      },
    },
    handle: async ({ ctx, query }) => toCommandListing(await ctx.workflows.commands(query.cwd)),
  }),
];
