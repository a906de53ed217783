import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { SvcClient } from '../../client/index.js';
import { errorBodyOf } from '../error-body.js';

/** A template variable as one string (the SDK gives a list for exploded variables, which ours are not). */
const one = (value: string | string[] | undefined): string => (Array.isArray(value) ? (value[0] ?? '') : (value ?? ''));

/** A read that failed carries svc's code and message, as a tool error does (a resource has no `isError`: it is a protocol error). */
async function reading<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const body = errorBodyOf(error);
    throw new Error(`${body.error}: ${body.message}`, { cause: error });
  }
}

/**
 * A run's record with its events (`svc://runs/{id}`) and its diff (`svc://runs/{id}/diff`), for
 * clients that attach resources to a conversation rather than call tools.
 */
export function registerResources(server: McpServer, client: SvcClient): void {
  server.registerResource(
    'run',
    new ResourceTemplate('svc://runs/{id}', { list: undefined }),
    { description: 'An svc run: its record, nodes and every event so far (JSON)', mimeType: 'application/json' },
    (uri, variables) =>
      reading(async () => {
        const run = await client.runs.get(one(variables.id));
        return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(run, null, 2) }] };
      }),
  );
  server.registerResource(
    'run-diff',
    new ResourceTemplate('svc://runs/{id}/diff', { list: undefined }),
    { description: 'What an svc run changed on its branch, as a unified diff', mimeType: 'text/x-diff' },
    (uri, variables) =>
      reading(async () => {
        const diff = await client.runs.diff(one(variables.id));
        return { contents: [{ uri: uri.href, mimeType: 'text/x-diff', text: diff.patch }] };
      }),
  );
}
