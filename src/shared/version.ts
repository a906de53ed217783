import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The package root: `dist/shared/` or `src/shared/` sit two levels below it. */
export const packageRoot = fileURLToPath(new URL('../../', import.meta.url));

let cached: string | undefined;

export function packageVersion(): string {
  cached ??= (JSON.parse(readFileSync(`${packageRoot}package.json`, 'utf8')) as { version: string }).version;
  return cached;
}
