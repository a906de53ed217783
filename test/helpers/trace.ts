// Reading what `test/fixtures/trace-imports.mjs` reports on a process's stderr: the modules it
// resolved (`svc-trace-import <url>`) and, as it exited, the CommonJS modules it required
// (`svc-trace-require <path>`).
import { fileURLToPath } from 'node:url';

/** The preload to pass as `--import` (in `NODE_OPTIONS` or a node argument). */
export const TRACER = fileURLToPath(new URL('../fixtures/trace-imports.mjs', import.meta.url));

/** The URLs (`import`) or paths (`require`) a traced process reported, in order. */
export function traced(stderr: string, kind: 'import' | 'require'): string[] {
  const prefix = `svc-trace-${kind} `;
  return stderr
    .split('\n')
    .filter((line) => line.startsWith(prefix))
    .map((line) => line.slice(prefix.length));
}

/** The package a module URL or path is in (`@scope/name` or `name`), or undefined outside node_modules. */
export function packageOf(location: string): string | undefined {
  return /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(location)?.[1];
}

/** The packages among `locations`, sorted, each once. */
export function packagesOf(locations: string[]): string[] {
  return [...new Set(locations.map(packageOf).filter((name): name is string => name !== undefined))].sort();
}
