/**
 * `svc serve` could not listen (port taken, unknown host). Its own module so that the CLI can
 * match it (via `runtime.ts`) without loading the server half: h3, listhen and the routes.
 */
export class ListenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ListenError';
  }
}
