import * as z from 'zod';
import { actorOf } from '../../shared/actor.js';
import {
  EnvironmentViewSchema,
  WorkspaceDetailSchema,
  WorkspaceSchema,
  CleanupResultSchema,
  CacheEntrySchema,
  AGE_HINT,
  parseAge,
  ENV_KEY_PATTERN,
} from '../../workspaces/index.js';
import { WorkspaceConflictsSchema } from '../../landing/index.js';
import { defineRoute, reply } from '../route.js';

/**
 * Workspaces (docs/contract.md, "Workspaces"). Answers are the workspace record
 * (`WorkspaceSchema`); env values go in and never come out — only their names (`env_keys`).
 */

const IdParams = z.object({ id: z.string().min(1).describe('workspace id, name, or an unambiguous id prefix') });

const RegisterBody = z
  .strictObject({
    url: z.string().min(1).optional().describe('a repository to clone: https://, ssh://, git@host:path or file://'),
    path: z.string().min(1).optional().describe('an existing local directory (absolute)'),
  })
  .describe('exactly one of url or path');

const EnvBody = z
  .record(z.string().regex(ENV_KEY_PATTERN, `env var names match ${ENV_KEY_PATTERN.source}`), z.string().max(128 * 1024))
  .describe('env var names and values; merged into what is set');

const CleanupBody = z
  .strictObject({
    olderThan: z
      .string()
      .refine((text) => parseAge(text) !== null, `olderThan takes ${AGE_HINT}`)
      .optional()
      .describe(`only runs that ended longer ago than this (${AGE_HINT}); default 7d, or any age with merged`),
    merged: z.boolean().default(false).describe("only runs whose branch is merged into the workspace's default branch (or whose changes are already in it)"),
    force: z.boolean().default(false).describe('with merged: remove unmerged branches too'),
    workspaceId: z.string().min(1).optional().describe('only this workspace: its id, name or an unambiguous id prefix (default: all)'),
  })
  .refine((body) => body.merged || !body.force, {
    message: 'force applies with merged only (an age-only clean-up removes unmerged branches already)',
    path: ['force'],
  });

const WorkspaceList = z.object({ workspaces: z.array(WorkspaceSchema), total: z.number().int() });

export const workspaceRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/workspaces',
    summary: 'Register a workspace: clone {url} into $SVC_HOME/workspaces/<id>/source, or register an existing directory {path}',
    tag: 'workspaces',
    body: RegisterBody,
    errors: [400, 409, 413, 415],
    responses: { 201: { description: 'The registered workspace', schema: WorkspaceSchema } },
    handle: async ({ ctx, body }) => reply(201, await ctx.workspaces.register(body)),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/workspaces',
    summary: 'Registered workspaces, oldest first',
    tag: 'workspaces',
    query: z.object({
      limit: z.coerce.number().int().min(1).max(200).default(50),
      offset: z.coerce.number().int().min(0).default(0),
    }),
    errors: [400],
    responses: { 200: { description: 'Workspaces', schema: WorkspaceList } },
    handle: ({ ctx, query }) => ctx.workspaces.list(query),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/workspaces/cleanup',
    summary:
      'Remove the worktrees (and svc/* branches) of finished runs that ended before an age, or whose branch is merged into the default branch (merged); answers what it removed and what it kept, with why',
    tag: 'workspaces',
    body: CleanupBody,
    bodyOptional: true,
    errors: [400, 404, 413, 415],
    responses: { 200: { description: 'The environments removed and kept', schema: CleanupResultSchema } },
    handle: ({ ctx, body }) => {
      const { olderThan, merged, force, workspaceId } = CleanupBody.parse(body ?? {});
      // By age alone the default is 7d; with merged, any age unless olderThan narrows it too.
      const age = olderThan ?? (merged ? undefined : '7d');
      return ctx.workspaces.cleanup({ before: age === undefined ? undefined : new Date(Date.now() - parseAge(age)!), merged, force }, workspaceId);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/workspaces/{id}',
    summary: "One workspace, with what its runs' worktrees take on this server's disk",
    tag: 'workspaces',
    params: IdParams,
    errors: [400, 404],
    responses: { 200: { description: 'The workspace', schema: WorkspaceDetailSchema } },
    handle: ({ ctx, params }) => ctx.workspaces.detail(params.id),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/workspaces/{id}/environments',
    summary: "The workspace's isolation environments: one git worktree per run",
    tag: 'workspaces',
    params: IdParams,
    errors: [400, 404],
    responses: { 200: { description: 'Environments, newest first', schema: z.object({ environments: z.array(EnvironmentViewSchema) }) } },
    handle: async ({ ctx, params }) => ({ environments: await ctx.workspaces.environments(params.id) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/workspaces/{id}/conflicts',
    summary:
      "The conflict forecast: which unlanded run branches would conflict with the target branch or with each other, and which files both change (computed from git's objects when asked)",
    tag: 'workspaces',
    params: IdParams,
    query: z.object({ runId: z.string().min(1).max(200).optional().describe('only the entries naming this run (its full id)') }),
    errors: [400, 404, 409],
    responses: { 200: { description: 'The forecast', schema: WorkspaceConflictsSchema } },
    handle: ({ ctx, params, query }) => ctx.forecast.ofWorkspace(params.id, { runId: query.runId }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/workspaces/{id}/cache',
    summary: "The workspace's setup cache in this server's home: what `.svc/worktree.yaml`'s `cache:` kept, most recently used first",
    tag: 'workspaces',
    params: IdParams,
    errors: [400, 404],
    responses: {
      200: {
        description: 'The entries, their total size and the home-wide limit (SVC_CACHE_MAX_BYTES)',
        schema: z.object({ workspaceId: z.string(), entries: z.array(CacheEntrySchema), totalBytes: z.number().int(), maxBytes: z.number().int() }),
      },
    },
    handle: ({ ctx, params }) => ctx.workspaces.cache(params.id),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/workspaces/{id}/cache',
    summary: "Empties the workspace's setup cache in this server's home: the next worktree of each key runs its setup again",
    tag: 'workspaces',
    params: IdParams,
    errors: [400, 404],
    responses: {
      200: { description: 'What was removed', schema: z.object({ workspaceId: z.string(), removed: z.number().int(), freedBytes: z.number().int() }) },
    },
    handle: ({ ctx, params }) => ctx.workspaces.clearCache(params.id),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/api/workspaces/{id}',
    summary: 'Grant or revoke consent to run agents despite agent keys in .env files (audit-logged at warn level)',
    tag: 'workspaces',
    params: IdParams,
    body: z.strictObject({ allowEnvKeys: z.boolean().describe('stored as allow_env_keys') }),
    errors: [400, 404, 413, 415],
    responses: { 200: { description: 'The workspace', schema: WorkspaceSchema } },
    handle: ({ ctx, params, body, headers }) => ctx.workspaces.setConsent(params.id, body.allowEnvKeys, actorOf(headers)),
  }),
  defineRoute({
    method: 'PUT',
    path: '/api/workspaces/{id}/env',
    summary: "Set workspace env vars (merged); they reach the workspace's bash nodes and agents, and are never returned",
    tag: 'workspaces',
    params: IdParams,
    body: EnvBody,
    errors: [400, 404, 413, 415],
    responses: { 200: { description: 'The workspace (env_keys lists the names set)', schema: WorkspaceSchema } },
    handle: ({ ctx, params, body }) => ctx.workspaces.setEnv(params.id, body),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/workspaces/{id}/env/{key}',
    summary: 'Unset one workspace env var',
    tag: 'workspaces',
    params: z.object({ id: z.string().min(1), key: z.string().regex(ENV_KEY_PATTERN, `env var names match ${ENV_KEY_PATTERN.source}`) }),
    errors: [400, 404],
    responses: { 200: { description: 'The workspace', schema: WorkspaceSchema } },
    handle: ({ ctx, params }) => ctx.workspaces.unsetEnv(params.id, params.key),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/workspaces/{id}',
    summary:
      'Remove a workspace: its worktrees, their svc/* branches, our clone and the registration (never a directory registered by path); 409 while a run on it is not finished',
    tag: 'workspaces',
    params: IdParams,
    errors: [400, 404, 409],
    responses: { 200: { description: 'Deleted', schema: z.object({ deleted: z.literal(true), id: z.string() }) } },
    handle: async ({ ctx, params }) => ({ deleted: true as const, id: (await ctx.workspaces.delete(params.id)).id }),
  }),
];
