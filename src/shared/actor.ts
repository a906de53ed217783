/**
 * Who sends an API request, where an audit entry must say so (docs/contract.md, "Log entries"): the CLI
 * names itself in this header; anything else is `api`.
 */
export const ACTOR_HEADER = 'x-svc-actor';
export type Actor = 'api' | 'cli';

export const actorOf = (headers: { get(name: string): string | null }): Actor => (headers.get(ACTOR_HEADER) === 'cli' ? 'cli' : 'api');
