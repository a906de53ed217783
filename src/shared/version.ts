import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Not `svc`: that name on npm is an unrelated package, which `npx svc` outside a checkout would offer.
const PACKAGE_NAME = 'svc-orchestrator';

/**
 * The nearest folder at or above `start` holding svc's own package.json. This file runs at several
 * depths — `src/shared/`, `dist/shared/`, and inlined into the esbuild bundle `dist/runtime.js`
 * or one of its `dist/chunks/` — so a fixed `../../` would be wrong in some of them.
 */
export function findPackageRoot(start: string): { root: string; version: string } {
  for (let dir = start; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === PACKAGE_NAME && typeof pkg.version === 'string') return { root: dir, version: pkg.version };
    } catch {
      // No package.json here (or not ours): keep walking up.
    }
    if (dirname(dir) === dir) throw new Error(`svc: no package.json named "${PACKAGE_NAME}" above ${start}`);
  }
}

const found = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

/** The package root (no trailing slash): where package.json, `bundled/` and `dist/` live. */
export const packageRoot = found.root;

export function packageVersion(): string {
  return found.version;
}
