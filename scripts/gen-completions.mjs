#!/usr/bin/env node
// Writes the shell completion scripts shipped in `completions/` from the BUILT CLI (run
// `npm run build` first): `svc completion <shell>` generates them from the command tree, so they
// list exactly the commands that exist. test/cli/completion.test.ts fails when these files are
// stale; `npm run completions` brings them up to date.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const bin = `${root}bin/svc.mjs`;

/** Shell → file name its completion system looks for. */
export const COMPLETION_FILES = { bash: 'svc.bash', zsh: '_svc', fish: 'svc.fish' };

if (!existsSync(`${root}dist/cli/main.js`)) {
  process.stderr.write('gen-completions: dist/ is missing; run `npm run build` first.\n');
  process.exit(1);
}
mkdirSync(`${root}completions`, { recursive: true });
for (const [shell, file] of Object.entries(COMPLETION_FILES)) {
  const script = execFileSync(process.execPath, [bin, 'completion', shell], {
    encoding: 'utf8',
    // The script must not depend on who generates it.
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' },
  });
  writeFileSync(`${root}completions/${file}`, script);
  process.stdout.write(`completions/${file}\n`);
}
